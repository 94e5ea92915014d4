import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { defaultResources, featureKeys } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, type EventStore, type Position } from '@renkei/event-store';
import { generateInstitutionMaster, importInstitutionMaster } from '@renkei/institution-master';
import { catchUpProjections } from '@renkei/projections';
import { createTestAuth, type TestAuth } from '@renkei/service-kit/testing';
import { buildQueryApp, queryProjections } from '../index.ts';

let db: TestDatabase;
let store: EventStore;
let app: FastifyInstance;
let testAuth: TestAuth;
let institutions: { id: string; name: string }[];

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  testAuth = await createTestAuth({ audience: defaultResources.query });
  app = await buildQueryApp({
    db,
    auth: testAuth.auth,
    logger: false,
    rateLimit: false,
    underPressure: false,
    minPositionTimeoutMs: 10_000,
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-qc-'));
  await generateInstitutionMaster(path.join(dir, 'm.csv'), { count: 2, seed: 5 });
  await importInstitutionMaster(db, path.join(dir, 'm.csv'));
  fs.rmSync(dir, { recursive: true });
  institutions = (
    await sql<{ id: string; name: string }>`SELECT id, name FROM ref.medical_institutions ORDER BY code`.execute(
      db.kysely,
    )
  ).rows;
});

afterAll(async () => {
  await app?.close();
  await store?.close();
  await db?.close();
});

let last: Position | undefined;
async function record(tenantId: string, stream: string, type: string, data: unknown) {
  const result = await store.append(
    stream,
    [
      {
        type,
        data,
        metadata: {
          tenant_id: tenantId,
          account_id: null,
          correlation_id: randomUUID(),
          causation_id: null,
          schema_version: 1,
        },
      },
    ],
    { expectedRevision: 'any' },
  );
  last = result.position;
}
const settle = () => catchUpProjections({ db, store, projections: queryProjections, until: last! });

async function request(tenantId: string, method: 'GET' | 'POST', url: string, payload?: object) {
  const token = await testAuth.token({ tenantId, features: [...featureKeys] });
  return app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
}

const communication = (id: string, institution: string, user: string, patch: Record<string, unknown> = {}) => ({
  communication_id: id,
  medical_institution_id: institution,
  communication_type: 'visit',
  acted_date: '2026-03-01',
  category: null,
  purpose: null,
  story: '',
  event_name: null,
  memo: '',
  other_memo: '',
  person_in_charge_hospital: null,
  attendee: null,
  is_doctor_attended: false,
  user_id: user,
  attachment_ids: [],
  label_values: [],
  tasks: [],
  ...patch,
});

describe('communication queries', () => {
  const tenant = randomUUID();
  const user = randomUUID();
  const [visit, phone, task] = [randomUUID(), randomUUID(), randomUUID()];

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
    await record(
      tenant,
      `communication-${visit}`,
      'CommunicationCreated',
      communication(visit, institutions[0]!.id, user, {
        acted_date: '2026-02-10',
        story: 'ｲﾝﾁｮｳ先生と面談',
        tasks: [{ task_id: task, title: '資料送付', staff_id: user, deadline: '2026-02-17' }],
      }),
    );
    await record(tenant, `communication-${visit}`, 'CommunicationCommentAdded', {
      communication_id: visit,
      comment_id: randomUUID(),
      user_id: user,
      comment: 'お疲れさまです',
    });
    await record(tenant, `communication-${visit}`, 'CommunicationLiked', { communication_id: visit, user_id: user });
    await record(
      tenant,
      `communication-${phone}`,
      'CommunicationCreated',
      communication(phone, institutions[1]!.id, user, {
        communication_type: 'phone',
        acted_date: '2026-03-05',
        memo: '日程調整',
      }),
    );
    await settle();
  });

  const search = async (body: object, url = '/api/communications/search_results', tenantId = tenant) => {
    const res = await request(tenantId, 'POST', url, body);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { data: { id: string }[]; meta: { total_count: number } };
  };

  it('lists newest first with names, tasks, comments and likes', async () => {
    const result = await search({});
    expect(result.meta.total_count).toBe(2);
    expect(result.data.map((c) => c.id)).toEqual([phone, visit]);
    expect(result.data[1]).toMatchObject({
      acted_date: '2026-02-10',
      user: { id: user, name: '連携 花子' },
      medical_institution: institutions[0],
      tasks: [
        { id: task, title: '資料送付', status: 'incomplete', deadline: '2026-02-17', staff: { name: '連携 花子' } },
      ],
      comments: [{ comment: 'お疲れさまです', user: { name: '連携 花子' } }],
      likes: [{ user: { id: user } }],
      version: 0,
    });
  });

  it('filters by keyword normalised like the partner search, type, period and institution', async () => {
    expect((await search({ keyword: 'いんちょう' })).data.map((c) => c.id)).toEqual([visit]);
    expect((await search({ keyword: 'ﾆｯﾃｲ' })).data).toEqual([]);
    expect((await search({ keyword: '日程' })).data.map((c) => c.id)).toEqual([phone]);
    expect((await search({ communication_types: ['phone'] })).data.map((c) => c.id)).toEqual([phone]);
    expect((await search({ period: { from: '2026-02-01', to: '2026-02-28' } })).data.map((c) => c.id)).toEqual([visit]);
    expect((await search({ sort: 'asc', per_page: 1 })).data.map((c) => c.id)).toEqual([visit]);
    const own = await search({}, `/api/medical_institutions/${institutions[1]!.id}/communications/search_results`);
    expect(own.data.map((c) => c.id)).toEqual([phone]);
  });

  it('shows one record to its tenant only', async () => {
    expect((await request(tenant, 'GET', `/api/communications/${visit}`)).json()).toMatchObject({ id: visit });
    expect((await request(randomUUID(), 'GET', `/api/communications/${visit}`)).statusCode).toBe(404);
    expect((await search({}, undefined, randomUUID())).meta.total_count).toBe(0);
  });

  it('gives the partner search and the CRM summary the last visit, sortable', async () => {
    const found = await request(tenant, 'POST', '/api/medical_institutions/search_results', {
      sort_by: 'last_visit_date',
      sort: 'desc',
    });
    expect(found.statusCode, found.body).toBe(200);
    const rows = found.json().data as { id: string; last_visit_date: string | null }[];
    expect(rows.map((r) => [r.id, r.last_visit_date])).toEqual([
      [institutions[0]!.id, '2026-02-10'],
      // A phone call is no visit.
      [institutions[1]!.id, null],
    ]);
    const summary = await request(tenant, 'GET', `/api/medical_institutions/${institutions[0]!.id}/summary`);
    expect(summary.json()).toMatchObject({ last_visit_date: '2026-02-10' });
  });

  it('lists tasks with their filters; a completed one leaves the incomplete list', async () => {
    const standalone = randomUUID();
    await record(tenant, `task-${standalone}`, 'TaskCreated', {
      task_id: standalone,
      title: '電話する',
      staff_id: null,
      deadline: null,
      medical_institution_id: null,
      communication_id: null,
      status: 'incomplete',
    });
    await record(tenant, `task-${task}`, 'TaskUpdated', {
      task_id: task,
      title: '資料送付',
      staff_id: user,
      deadline: '2026-02-17',
      medical_institution_id: institutions[0]!.id,
      communication_id: visit,
      status: 'finished',
    });
    await settle();
    const list = async (query: string) => {
      const res = await request(tenant, 'GET', `/api/tasks?${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { data: { id: string; status: string; version: number }[]; meta: { total_count: number } };
    };
    expect((await list('status=incomplete')).data.map((t) => t.id)).toEqual([standalone]);
    expect((await list('status=finished')).data).toMatchObject([{ id: task, status: 'finished', version: 1 }]);
    expect((await list(`medical_institution_id=${institutions[0]!.id}`)).data.map((t) => t.id)).toEqual([task]);
    expect((await list('sort_by=deadline&sort=asc')).meta.total_count).toBe(2);
    const one = await request(tenant, 'GET', `/api/tasks/${task}`);
    expect(one.json()).toMatchObject({
      id: task,
      communication_id: visit,
      deadline: '2026-02-17',
      medical_institution: { id: institutions[0]!.id, name: institutions[0]!.name },
      staff: { id: user, name: '連携 花子' },
    });
    expect((await request(randomUUID(), 'GET', `/api/tasks/${task}`)).statusCode).toBe(404);
  });

  it('exports the whole search as CSV, in the search order', async () => {
    const res = await request(tenant, 'POST', '/api/communications/search_results/export', { sort: 'asc' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    const lines = res.body
      .replace(/^\ufeff/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('ID,活動日,種別,医療機関,担当者,内容,メモ,その他メモ,医師面談,ラベル,タスク,いいね,コメント');
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual([visit, phone]);
    expect(lines[1]).toContain('連携 花子');
    expect(lines[1]).toContain('資料送付');
    const other = await request(randomUUID(), 'POST', '/api/communications/search_results/export', {});
    expect(
      other.body
        .replace(/^\ufeff/, '')
        .trim()
        .split('\r\n'),
    ).toHaveLength(1);
  });
});
