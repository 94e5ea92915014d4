import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { featureKeys, listVersion } from '@renkei/contracts';
import type { TestDatabase } from '@renkei/db';
import type { TestAuth } from '@renkei/service-kit/testing';
import { startQueryTest, type QueryTest } from '../testing/query-test.ts';
import { blankCommunication, blankVoc } from '@renkei/domain/testing';

let t: QueryTest;
let db: TestDatabase;
let app: FastifyInstance;
let testAuth: TestAuth;
let record: QueryTest['record'];
let settle: QueryTest['settle'];
let institutions: { id: string; name: string }[];

beforeAll(async () => {
  t = await startQueryTest({ master: { generated: { count: 2, seed: 6 } } });
  ({ db, app, testAuth, record, settle } = t);
  institutions = (
    await sql<{ id: string; name: string }>`SELECT id, name FROM ref.medical_institutions ORDER BY code`.execute(
      db.kysely,
    )
  ).rows;
});

afterAll(async () => {
  await t?.close();
});

async function request(tenantId: string, method: 'GET' | 'POST', url: string, payload?: object) {
  const token = await testAuth.token({ tenantId, features: [...featureKeys] });
  return app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
}

const vocFields = (id: string, institution: string, patch: Record<string, unknown> = {}) =>
  blankVoc({ voc_id: id, medical_institution_id: institution }, patch);

describe('voc queries', () => {
  const tenant = randomUUID();
  const user = randomUUID();
  const [a, b, c, visit, gone, groupA, groupB] = Array.from({ length: 7 }, () => randomUUID()) as string[];

  beforeAll(async () => {
    await record(tenant, `account-${user}`, 'AccountRegistered', {
      account_id: user,
      tenant_id: tenant,
      username: '連携 花子',
      email: null,
      login_name: null,
      role: 'member',
      cs_account: false,
    });
    const created = (id: string, acted: string) =>
      blankCommunication(
        { communication_id: id, medical_institution_id: institutions[0]!.id, user_id: user, acted_date: acted },
        { tasks: [] },
      );
    await record(tenant, `communication-${visit}`, 'CommunicationCreated', created(visit!, '2026-03-30'));
    await record(tenant, `communication-${gone}`, 'CommunicationCreated', created(gone!, '2026-03-20'));
    await record(tenant, `communication-${gone}`, 'CommunicationDeleted', {
      communication_id: gone,
      medical_institution_id: institutions[0]!.id,
    });
    await record(tenant, `voc_groups-${tenant}`, 'VocGroupsReplaced', {
      voc_groups: [
        { id: groupA, name: '紹介・返書' },
        { id: groupB, name: '接遇' },
      ],
    });
    await record(
      tenant,
      `voc-${a}`,
      'VocCreated',
      vocFields(a!, institutions[0]!.id, {
        title: '返書が遅い',
        priority: 'HIGH',
        user_id: user,
        voc_group_id: groupA,
        communication_ids: [visit, gone],
      }),
    );
    await record(
      tenant,
      `voc-${b}`,
      'VocCreated',
      vocFields(b!, institutions[1]!.id, { title: '受付が丁寧', reported_date: '2026-03-01', voc_group_id: groupB }),
    );
    await record(
      tenant,
      `voc-${b}`,
      'VocUpdated',
      vocFields(b!, institutions[1]!.id, {
        title: '受付が丁寧',
        reported_date: '2026-03-01',
        voc_group_id: groupB,
        status: 'COMPLETED',
      }),
    );
    await record(tenant, `voc-${c}`, 'VocCreated', vocFields(c!, institutions[1]!.id, { reported_date: '2026-02-01' }));
    await record(tenant, `voc-${c}`, 'VocDeleted', { voc_id: c, medical_institution_id: institutions[1]!.id });
    await settle();
  });

  it('lists VOCs newest first with names, groups and the live linked communications', async () => {
    const res = await request(tenant, 'GET', '/api/vocs');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().meta).toEqual({ total_count: 2, page: 1, per_page: 20, total_pages: 1 });
    expect(res.json().data).toEqual([
      expect.objectContaining({
        id: a,
        title: '返書が遅い',
        reported_date: '2026-04-01',
        priority: 'HIGH',
        user: { id: user, name: '連携 花子' },
        medical_institution: institutions[0],
        voc_group_id: groupA,
        voc_group: { id: groupA, name: '紹介・返書' },
        communication_ids: [visit],
        communications: [{ id: visit, communication_type: 'visit', acted_date: '2026-03-30' }],
        version: 0,
      }),
      expect.objectContaining({ id: b, status: 'COMPLETED', voc_group: { id: groupB, name: '接遇' }, version: 1 }),
    ]);
  });

  it('filters by status, priority, group, institution, communication and period', async () => {
    const ids = async (qs: string) =>
      ((await request(tenant, 'GET', `/api/vocs?${qs}`)).json().data as { id: string }[]).map((v) => v.id);
    expect(await ids('status=COMPLETED')).toEqual([b]);
    expect(await ids('priority=HIGH')).toEqual([a]);
    expect(await ids(`voc_group_id=${groupB}`)).toEqual([b]);
    expect(await ids(`medical_institution_id=${institutions[0]!.id}`)).toEqual([a]);
    expect(await ids(`communication_id=${visit}`)).toEqual([a]);
    expect(await ids('reported_from=2026-02-15&reported_to=2026-03-15')).toEqual([b]);
    expect(await ids('sort=asc')).toEqual([b, a]);
    expect(await ids('per_page=1&page=2')).toEqual([b]);
    const bad = await request(tenant, 'GET', '/api/vocs?status=DONE');
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors.map((e: { field: string }) => e.field)).toEqual(['status']);
    const period = await request(tenant, 'GET', '/api/vocs?reported_from=2026-04-01&reported_to=2026-03-01');
    expect(period.statusCode).toBe(422);
    expect(period.json().errors.map((e: { field: string }) => e.field)).toEqual(['reported_to']);
  });

  it('answers groups in order, the VOCs on their communications, a CSV, and nothing to another tenant', async () => {
    const groups = await request(tenant, 'GET', '/api/voc_groups');
    expect(groups.json()).toEqual([
      { id: groupA, name: '紹介・返書' },
      { id: groupB, name: '接遇' },
    ]);
    expect(groups.headers.etag).toBe(`"${listVersion(groups.json())}"`);
    const linked = await request(tenant, 'GET', `/api/communications/${visit}`);
    expect(linked.json().vocs).toEqual([{ id: a, title: '返書が遅い', status: 'NOT_STARTED', priority: 'HIGH' }]);
    const csv = await request(tenant, 'GET', '/api/vocs/export?status=COMPLETED');
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    const lines = csv.body
      .replace(/^\ufeff/, '')
      .trim()
      .split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('受付が丁寧');
    expect(lines[1]).toContain('対応済');
    const stranger = randomUUID();
    expect((await request(stranger, 'GET', '/api/vocs')).json().data).toEqual([]);
    expect((await request(stranger, 'GET', '/api/voc_groups')).json()).toEqual([]);
  });
});
