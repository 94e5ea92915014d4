import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { AlertFilters, AlertTriggers, featureKeys } from '@renkei/contracts';
import type { TestDatabase } from '@renkei/db';
import { alertIdOf, type AlertEvaluated } from '@renkei/domain';
import type { TestAuth } from '@renkei/service-kit/testing';
import { startQueryTest, type QueryTest } from '../testing/query-test.ts';

let t: QueryTest;
let db: TestDatabase;
let app: FastifyInstance;
let testAuth: TestAuth;
let record: QueryTest['record'];
let settle: QueryTest['settle'];
let institutions: { id: string; name: string; address: string }[];

beforeAll(async () => {
  t = await startQueryTest({ master: { generated: { count: 3, seed: 8 } } });
  ({ db, app, testAuth, record, settle } = t);
  institutions = (
    await sql<{
      id: string;
      name: string;
      address: string;
    }>`SELECT id, name, address FROM ref.medical_institutions ORDER BY code`.execute(db.kysely)
  ).rows;
});

afterAll(async () => {
  await t?.close();
});

async function get(tenantId: string, url: string) {
  const token = await testAuth.token({ tenantId, features: [...featureKeys] });
  return app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
}

const triggers = AlertTriggers.parse({ referral_change_count: { direction: 'decrease', count: 2 } });
const filters = AlertFilters.parse({});

function evaluation(conditionId: string, month: string, counts: [number, number][]): AlertEvaluated {
  return {
    alert_id: alertIdOf(conditionId, month),
    condition_id: conditionId,
    name: '紹介減少',
    condition_summary: '前月比で紹介が2件以上減少',
    condition_parameters: { triggers, filters },
    alert_date: month,
    evaluated_on: '2026-04-02',
    target_count: counts.length,
    institutions: {
      medical_institution_ids: counts.map((_, i) => institutions[i]!.id),
      referral_counts: counts.map(([n]) => n),
      comparison_referral_counts: counts.map(([, c]) => c),
      last_visit_dates: counts.map((_, i) => (i === 0 ? '2025-12-01' : null)),
    },
  };
}

describe('alert queries', () => {
  const tenant = randomUUID();
  const other = randomUUID();
  const [condition, deletedCondition, tagged, gone] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const tag = randomUUID();
  const march = alertIdOf(condition, '2026-03-01');
  const february = alertIdOf(condition, '2026-02-01');

  beforeAll(async () => {
    const created = (id: string, name: string, f: object = {}) =>
      record(tenant, `alert_condition-${id}`, 'AlertConditionCreated', {
        condition_id: id,
        name,
        type: 'referral',
        triggers,
        filters: AlertFilters.parse(f),
      });
    await record(tenant, `tag-${tag}`, 'TagCreated', { tag_id: tag, name: '重点', description: '', group_name: null });
    await created(condition, '紹介減少');
    await created(deletedCondition, '削除する');
    await record(tenant, `alert_condition-${deletedCondition}`, 'AlertConditionDeleted', {
      condition_id: deletedCondition,
    });
    await created(tagged, 'タグあり', { tag_ids: [tag] });
    await created(gone, 'タグ削除済み', { tag_ids: [randomUUID()] });
    await record(tenant, `alert-${march}`, 'AlertRaised', evaluation(condition, '2026-03-01', [[1, 4]]));
    // A later evaluation with other figures replaces the institutions.
    await record(
      tenant,
      `alert-${march}`,
      'AlertUpdated',
      evaluation(condition, '2026-03-01', [
        [0, 5],
        [1, 3],
      ]),
    );
    await record(tenant, `alert-${february}`, 'AlertRaised', evaluation(condition, '2026-02-01', [[2, 0]]));
    await record(tenant, `alert-${february}`, 'AlertArchived', { alert_id: february });
    await settle();
  });

  it('lists open and archived alerts apart, newest month first', async () => {
    const open = await get(tenant, '/api/alerts');
    expect(open.statusCode, open.body).toBe(200);
    expect(open.json()).toEqual({
      data: [
        {
          id: march,
          name: '紹介減少',
          condition_summary: '前月比で紹介が2件以上減少',
          condition_parameters: { triggers, filters },
          alert_date: '2026-03-01',
          target_count: 2,
          is_archived: false,
        },
      ],
      meta: { total_count: 1, page: 1, per_page: 20, total_pages: 1 },
    });
    const archived = await get(tenant, '/api/alerts?status=archived');
    expect(archived.json().data.map((a: { id: string }) => a.id)).toEqual([february]);
    expect((await get(tenant, '/api/alerts?status=closed')).statusCode).toBe(422);
    expect((await get(other, '/api/alerts')).json().data).toEqual([]);
  });

  it('answers one alert and its institutions; another tenant gets 404', async () => {
    expect((await get(tenant, `/api/alerts/${march}`)).json()).toMatchObject({ id: march, target_count: 2 });
    expect((await get(other, `/api/alerts/${march}`)).statusCode).toBe(404);
    expect((await get(tenant, `/api/alerts/${randomUUID()}`)).statusCode).toBe(404);
    const res = await get(tenant, `/api/alerts/${march}/medical_institutions?per_page=1&page=2`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      data: [
        {
          id: institutions[1]!.id,
          name: institutions[1]!.name,
          address: institutions[1]!.address,
          referral_count: 1,
          comparison_referral_count: 3,
          rate_of_referral_change: -2 / 3,
          last_visit_date: null,
        },
      ],
      meta: { total_count: 2, page: 2, per_page: 1, total_pages: 2 },
    });
    const first = (await get(tenant, `/api/alerts/${march}/medical_institutions`)).json().data[0];
    expect(first).toMatchObject({
      referral_count: 0,
      comparison_referral_count: 5,
      rate_of_referral_change: -1,
      last_visit_date: '2025-12-01',
    });
    expect((await get(other, `/api/alerts/${march}/medical_institutions`)).statusCode).toBe(404);
  });

  it('lists live conditions newest first, marking one whose tag is gone', async () => {
    const res = await get(tenant, '/api/alert_conditions');
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data as { id: string; has_invalid: boolean; created_date: string }[];
    expect(data.map((c) => [c.id, c.has_invalid])).toEqual([
      [gone, true],
      [tagged, false],
      [condition, false],
    ]);
    expect(data[0]!.created_date).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect((await get(other, '/api/alert_conditions')).json().meta.total_count).toBe(0);
  });
});
