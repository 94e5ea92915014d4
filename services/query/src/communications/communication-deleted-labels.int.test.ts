import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { featureKeys } from '@renkei/contracts';
import type { TestAuth } from '@renkei/service-kit/testing';
import { blankLabelValue } from '@renkei/domain';
import { blankCommunication } from '@renkei/domain/testing';
import { startQueryTest, type QueryTest } from '../testing/query-test.ts';

let t: QueryTest;
let app: FastifyInstance;
let testAuth: TestAuth;
let record: QueryTest['record'];
let settle: QueryTest['settle'];

beforeAll(async () => {
  t = await startQueryTest({ master: { generated: { count: 1, seed: 7 } } });
  ({ app, testAuth, record, settle } = t);
});

afterAll(async () => {
  await t?.close();
});

async function request(tenantId: string, method: 'GET' | 'POST', url: string, payload?: object) {
  const token = await testAuth.token({ tenantId, features: [...featureKeys] });
  return app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
}

/**
 * docs/decisions.md: values of deleted labels and choices stay readable. The label list leaves deleted
 * labels out unless asked, and the CSV export names them with （削除済み）, and own departments by name.
 */
describe('deleted communication labels and own departments', () => {
  const tenant = randomUUID();
  const user = randomUUID();
  const recordId = randomUUID();
  const [live, gone, department] = [randomUUID(), randomUUID(), randomUUID()];
  const [kept, removed] = [randomUUID(), randomUUID()];
  const cardiology = randomUUID();
  const label = (id: string, name: string, component: string, selections: unknown[]) => ({
    label_id: id,
    name,
    communication_type: 'visit',
    component_type: component,
    description: '',
    selections,
    is_required: false,
  });

  beforeAll(async () => {
    const [institution] = (
      await sql<{ id: string }>`SELECT id FROM ref.medical_institutions ORDER BY code LIMIT 1`.execute(t.db.kysely)
    ).rows;
    const labels = `communication_labels-${tenant}`;
    await record(tenant, `own_departments-${tenant}`, 'OwnDepartmentsReplaced', {
      own_departments: [{ id: cardiology, name: '循環器内科', department_id: null }],
    });
    await record(
      tenant,
      labels,
      'CommunicationLabelCreated',
      label(live, '面談結果', 'select', [
        { id: kept, label: '良好', order: 0 },
        { id: removed, label: '保留', order: 1 },
      ]),
    );
    await record(tenant, labels, 'CommunicationLabelCreated', label(gone, '旧ラベル', 'text', []));
    await record(tenant, labels, 'CommunicationLabelCreated', label(department, '紹介先', 'own_department', []));
    await record(
      tenant,
      `communication-${recordId}`,
      'CommunicationCreated',
      blankCommunication(
        {
          communication_id: recordId,
          medical_institution_id: institution!.id,
          user_id: user,
          acted_date: '2026-03-01',
        },
        {
          tasks: [],
          label_values: [
            { ...blankLabelValue(live), selection_id: removed },
            { ...blankLabelValue(gone), text_value: '旧値' },
            { ...blankLabelValue(department), own_department_id: cardiology },
          ],
        },
      ),
    );
    // The choice 保留 and the label 旧ラベル are deleted after the record chose them.
    await record(
      tenant,
      labels,
      'CommunicationLabelUpdated',
      label(live, '面談結果', 'select', [{ id: kept, label: '良好', order: 0 }]),
    );
    await record(tenant, labels, 'CommunicationLabelDeleted', { label_id: gone });
    await settle();
  });

  it('lists live labels only, in their order; with include_deleted, deleted ones flagged and removed choices', async () => {
    const plain = await request(tenant, 'GET', '/api/communication_labels');
    expect(plain.statusCode, plain.body).toBe(200);
    expect(plain.json()).toEqual([
      expect.objectContaining({ id: live, order: 0, selections: [{ id: kept, label: '良好', order: 0 }] }),
      expect.objectContaining({ id: department, order: 1 }),
    ]);
    expect(plain.json()[0]).not.toHaveProperty('is_deleted');

    const all = await request(tenant, 'GET', '/api/communication_labels?include_deleted=true');
    expect(all.statusCode, all.body).toBe(200);
    expect(all.json()).toEqual([
      expect.objectContaining({
        id: live,
        is_deleted: false,
        deleted_selections: [{ id: removed, label: '保留', order: 1 }],
      }),
      expect.objectContaining({ id: gone, name: '旧ラベル', is_deleted: true }),
      expect.objectContaining({ id: department, order: 1, is_deleted: false }),
    ]);
    // Another tenant sees none of them.
    expect((await request(randomUUID(), 'GET', '/api/communication_labels?include_deleted=true')).json()).toEqual([]);
  });

  it('refuses an include_deleted that is not a boolean with a 422 naming it', async () => {
    const res = await request(tenant, 'GET', '/api/communication_labels?include_deleted=maybe');
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('include_deleted');
  });

  it('exports the values of deleted labels and choices marked, and the own department by its name', async () => {
    const res = await request(tenant, 'POST', '/api/communications/search_results/export', {});
    expect(res.statusCode, res.body).toBe(200);
    const [, row] = res.body.replace(/^\ufeff/, '').split('\r\n');
    expect(row).toContain(`${recordId},`);
    // What the update import takes back (communication-import.reactor.int.test.ts writes the same cell).
    expect(row).toContain('面談結果: 保留（削除済み） / 旧ラベル（削除済み）: 旧値 / 紹介先: 循環器内科');
  });
});
