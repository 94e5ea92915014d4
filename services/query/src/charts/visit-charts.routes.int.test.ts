import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { featureKeys, type ChartData } from '@renkei/contracts';
import type { TestDatabase } from '@renkei/db';
import { bucketsOf } from '@renkei/domain';
import type { TestAuth } from '@renkei/service-kit/testing';
import { startQueryTest, type QueryTest } from '../testing/query-test.ts';
import { blankCommunication } from '@renkei/domain/testing';

let t: QueryTest;
let db: TestDatabase;
let app: FastifyInstance;
let testAuth: TestAuth;
let record: QueryTest['record'];
let settle: QueryTest['settle'];
let institutions: { id: string; facility_type: string; prefecture: string }[];

beforeAll(async () => {
  t = await startQueryTest({ master: { generated: { count: 4, seed: 11 } } });
  ({ db, app, testAuth, record, settle } = t);
  institutions = (
    await sql<{ id: string; facility_type: string; prefecture: string }>`
      SELECT id, facility_type_id::text AS facility_type, lpad(prefecture_code::text, 2, '0') AS prefecture
        FROM ref.medical_institutions ORDER BY code`.execute(db.kysely)
  ).rows;
});

afterAll(async () => {
  await t?.close();
});

async function post(tenantId: string, url: string, payload: object, features: string[] = [...featureKeys]) {
  const token = await testAuth.token({ tenantId, features: features as (typeof featureKeys)[number][] });
  return app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${token}` }, payload });
}

const fields = (id: string, institution: string, user: string, patch: Record<string, unknown> = {}) =>
  blankCommunication(
    { communication_id: id, medical_institution_id: institution, user_id: user, acted_date: '2026-04-10' },
    patch,
  );
const task = (id: string) => ({ task_id: id, title: '資料送付', staff_id: null, deadline: null });
const values = (chart: ChartData, key: string) => chart.series.find((s) => s.key === key)!.values;

describe('visit charts', () => {
  const tenant = randomUUID();
  const [alice, bob] = [randomUUID(), randomUUID()];

  beforeAll(async () => {
    const visits: [string, string, Record<string, unknown>, number][] = [
      ['2026-04-01', alice, { is_doctor_attended: true }, 1],
      ['2026-04-30', alice, {}, 0],
      ['2026-05-15', bob, { communication_type: 'new_visit', is_doctor_attended: true }, 2],
      ['2026-05-16', bob, { communication_type: 'phone' }, 1],
      ['2026-06-02', alice, {}, 0],
    ];
    for (const [date, user, patch, tasks] of visits) {
      const id = randomUUID();
      await record(tenant, `communication-${id}`, 'CommunicationCreated', {
        ...fields(id, institutions[user === alice ? 0 : 1]!.id, user, { acted_date: date, ...patch }),
        tasks: Array.from({ length: tasks }, () => task(randomUUID())),
      });
    }
    // Another tenant's visit on the same day never counts.
    const other = randomUUID();
    await record(randomUUID(), `communication-${other}`, 'CommunicationCreated', {
      ...fields(other, institutions[0]!.id, alice, { acted_date: '2026-04-01' }),
      tasks: [],
    });
    await settle();
  });

  it('counts visits per month, in total and per type, with the rates of doctor interviews and next actions', async () => {
    const period = { from: '2026-04-01', to: '2026-07-31' };
    const visits = await post(tenant, '/api/charts/visits', { period });
    expect(visits.statusCode).toBe(200);
    const chart = visits.json<ChartData>();
    expect(chart.labels).toHaveLength(4);
    expect(values(chart, 'visits')).toEqual([2, 1, 1, 0]);
    expect(values(chart, 'visit')).toEqual([2, 0, 1, 0]);
    expect(values(chart, 'new_visit')).toEqual([0, 1, 0, 0]);

    const doctors = (await post(tenant, '/api/charts/visits/doctor_interview_rates', { period })).json<ChartData>();
    expect(values(doctors, 'doctor_interview_rate')).toEqual([50, 100, 0, null]);
    const actions = (await post(tenant, '/api/charts/visits/next_action_rates', { period })).json<ChartData>();
    expect(values(actions, 'next_action_rate')).toEqual([50, 100, 0, null]);
    expect(values(actions, 'next_actions')).toEqual([1, 1, 0, 0]);
  });

  it('filters by staff, type and institution, and counts a partial month to the day', async () => {
    const base = { period: { from: '2026-04-02', to: '2026-06-01' }, period_unit: 'quarter' };
    const all = (await post(tenant, '/api/charts/visits', base)).json<ChartData>();
    expect(values(all, 'visits')).toEqual([2]);
    const byBob = (await post(tenant, '/api/charts/visits', { ...base, user_ids: [bob] })).json<ChartData>();
    expect(values(byBob, 'visits')).toEqual([1]);
    const onlyVisits = (
      await post(tenant, '/api/charts/visits', { ...base, communication_types: ['visit'] })
    ).json<ChartData>();
    expect(values(onlyVisits, 'visits')).toEqual([1]);
    const atFirst = (
      await post(tenant, '/api/charts/visits', { ...base, medical_institution_ids: [institutions[0]!.id] })
    ).json<ChartData>();
    expect(values(atFirst, 'visits')).toEqual([1]);
  });

  it('refuses a body it cannot read (422 naming the field) and a tenant without the feature (403)', async () => {
    const bad = await post(tenant, '/api/charts/visits', {
      period: { from: '2026-04-01', to: '2026-03-01' },
      communication_types: ['phone'],
    });
    expect(bad.statusCode).toBe(422);
    const fieldsNamed = bad.json<{ errors: { field: string }[] }>().errors.map((e) => e.field);
    expect(fieldsNamed).toEqual(expect.arrayContaining(['period.to', 'communication_types.0']));
    const without = featureKeys.filter((k) => k !== 'communications');
    expect(
      (
        await post(
          tenant,
          '/api/charts/visits/next_action_rates',
          { period: { from: '2026-04-01', to: '2026-04-30' } },
          without,
        )
      ).statusCode,
    ).toBe(403);
  });
});

describe('visit charts against the raw communications (property)', () => {
  const users: string[] = [randomUUID(), randomUUID(), randomUUID()];
  // Visits most, so that most runs have several to move, delete and link.
  const types = ['visit', 'visit', 'new_visit', 'phone'] as const;
  const day = (n: number) => new Date(Date.UTC(2025, 0, 1) + n * 86_400_000).toISOString().slice(0, 10);
  const op = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant('create' as const),
        type: fc.constantFrom(...types),
        date: fc.integer({ min: 0, max: 540 }),
        user: fc.integer({ min: 0, max: 2 }),
        institution: fc.integer({ min: 0, max: 3 }),
        doctor: fc.boolean(),
        tasks: fc.integer({ min: 0, max: 2 }),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('update' as const),
        target: fc.nat(),
        type: fc.constantFrom(...types),
        date: fc.integer({ min: 0, max: 540 }),
        user: fc.integer({ min: 0, max: 2 }),
        doctor: fc.boolean(),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), target: fc.nat() }) },
    // The projection's batch ends here: later edits, deletes and task links then meet stored rows.
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('settle' as const) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('task' as const), target: fc.nat(), remove: fc.boolean() }) },
  );
  const body = fc.record({
    from: fc.integer({ min: 0, max: 540 }),
    length: fc.integer({ min: 0, max: 400 }),
    unit: fc.constantFrom('week', 'month', 'quarter', 'half_year', 'year', 'fiscal_year'),
    users: fc.subarray([0, 1, 2]),
    types: fc.subarray(['visit', 'new_visit'] as const),
    institutions: fc.subarray([0, 1, 2, 3]),
    facility: fc.boolean(),
    prefecture: fc.boolean(),
  });

  it('answers, bucket by bucket, what the live communications and tasks give', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { minLength: 10, maxLength: 40 }),
        fc.array(body, { minLength: 1, maxLength: 4 }),
        async (ops, bodies) => {
          const tenant = randomUUID();
          const live: { id: string; institution: string; tasks: string[] }[] = [];
          for (const o of ops) {
            if (o.kind === 'create') {
              const id = randomUUID();
              const tasks = Array.from({ length: o.tasks }, () => randomUUID());
              live.push({ id, institution: institutions[o.institution]!.id, tasks });
              await record(tenant, `communication-${id}`, 'CommunicationCreated', {
                ...fields(id, institutions[o.institution]!.id, users[o.user]!, {
                  communication_type: o.type,
                  acted_date: day(o.date),
                  is_doctor_attended: o.doctor,
                }),
                tasks: tasks.map(task),
              });
              continue;
            }
            if (o.kind === 'settle') {
              await settle();
              continue;
            }
            if (live.length === 0) continue;
            const target = live[o.target % live.length]!;
            if (o.kind === 'update')
              await record(
                tenant,
                `communication-${target.id}`,
                'CommunicationUpdated',
                fields(target.id, target.institution, users[o.user]!, {
                  communication_type: o.type,
                  acted_date: day(o.date),
                  is_doctor_attended: o.doctor,
                }),
              );
            else if (o.kind === 'delete') {
              live.splice(live.indexOf(target), 1);
              await record(tenant, `communication-${target.id}`, 'CommunicationDeleted', {
                communication_id: target.id,
                medical_institution_id: target.institution,
              });
            } else if (o.remove && target.tasks.length > 0) {
              const removed = target.tasks.pop()!;
              await record(tenant, `task-${removed}`, 'TaskDeleted', { task_id: removed, communication_id: target.id });
            } else {
              const id = randomUUID();
              target.tasks.push(id);
              await record(tenant, `task-${id}`, 'TaskCreated', {
                task_id: id,
                title: '再訪問',
                staff_id: null,
                deadline: null,
                medical_institution_id: target.institution,
                communication_id: target.id,
                status: 'incomplete',
              });
            }
          }
          await settle();
          const { rows: raw } = await sql<{
            d: string;
            type: string;
            user_id: string;
            institution: string;
            doctor: boolean;
            task: boolean;
          }>`
            SELECT to_char(c.acted_date, 'YYYY-MM-DD') AS d, c.communication_type AS type, c.user_id,
                   c.medical_institution_id AS institution, c.is_doctor_attended AS doctor,
                   EXISTS (SELECT 1 FROM rm.tasks t WHERE t.tenant_id = c.tenant_id AND t.communication_id = c.id) AS task
              FROM rm.communications c WHERE c.tenant_id = ${tenant}`.execute(db.kysely);
          // The facility-type and prefecture rows themselves against the visits joined to the master.
          const attributeRows = async (query: ReturnType<typeof sql>) =>
            (await query.execute(db.kysely)).rows.map((r) => JSON.stringify(r)).sort();
          expect(
            await attributeRows(sql`
              SELECT to_char(month, 'YYYY-MM') AS m, communication_type AS t, facility_type_id AS f, prefecture_code AS p,
                     visit_count AS n, doctor_interview_count AS d, next_action_count AS a
                FROM rm.visit_attribute_monthly_rollups WHERE tenant_id = ${tenant}`),
          ).toEqual(
            await attributeRows(sql`
              SELECT to_char(c.acted_date, 'YYYY-MM') AS m, c.communication_type AS t, m.facility_type_id AS f,
                     m.prefecture_code::int AS p, count(*)::int AS n, count(*) FILTER (WHERE c.is_doctor_attended)::int AS d,
                     count(*) FILTER (WHERE EXISTS (SELECT 1 FROM rm.tasks x
                                                     WHERE x.tenant_id = c.tenant_id AND x.communication_id = c.id))::int AS a
                FROM rm.communications c JOIN ref.medical_institutions m ON m.id = c.medical_institution_id
               WHERE c.tenant_id = ${tenant} AND c.communication_type IN ('visit', 'new_visit')
               GROUP BY 1, 2, 3, 4`),
          );
          for (const b of bodies) {
            const period = { from: day(b.from), to: day(b.from + b.length) };
            const chosenInstitutions = b.institutions.map((i) => institutions[i]!.id);
            const facility = b.facility ? [institutions[0]!.facility_type] : [];
            const prefectures = b.prefecture ? [institutions[1]!.prefecture] : [];
            const request = {
              period,
              period_unit: b.unit,
              user_ids: b.users.map((u) => users[u]!),
              communication_types: b.types,
              medical_institution_ids: chosenInstitutions,
              facility_type_ids: facility,
              prefectures,
            };
            const kept = raw.filter(
              (r) =>
                (b.types.length === 0 ? ['visit', 'new_visit'] : b.types).includes(r.type as 'visit') &&
                (request.user_ids.length === 0 || request.user_ids.includes(r.user_id)) &&
                (chosenInstitutions.length === 0 || chosenInstitutions.includes(r.institution)) &&
                (facility.length === 0 ||
                  institutions.find((i) => i.id === r.institution)!.facility_type === facility[0]) &&
                (prefectures.length === 0 ||
                  institutions.find((i) => i.id === r.institution)!.prefecture === prefectures[0]),
            );
            const buckets = bucketsOf(period, b.unit);
            const inBucket = buckets.map((bucket) => kept.filter((r) => r.d >= bucket.from && r.d <= bucket.to));
            const rate = (n: number, of: number) => (of === 0 ? null : Math.round((n * 1000) / of) / 10);
            const visits = (await post(tenant, '/api/charts/visits', request)).json<ChartData>();
            expect(values(visits, 'visits')).toEqual(inBucket.map((rows) => rows.length));
            expect(values(visits, 'new_visit')).toEqual(
              inBucket.map((rows) => rows.filter((r) => r.type === 'new_visit').length),
            );
            const doctors = (
              await post(tenant, '/api/charts/visits/doctor_interview_rates', request)
            ).json<ChartData>();
            expect(values(doctors, 'doctor_interview_rate')).toEqual(
              inBucket.map((rows) => rate(rows.filter((r) => r.doctor).length, rows.length)),
            );
            const actions = (await post(tenant, '/api/charts/visits/next_action_rates', request)).json<ChartData>();
            expect(values(actions, 'next_actions')).toEqual(inBucket.map((rows) => rows.filter((r) => r.task).length));
          }
        },
      ),
      { numRuns: 50 },
    );
  });
});

describe('visit charts by facility type after a master sync', () => {
  it('answers from the institutions as the master has them now, before and after the rollups catch up', async () => {
    const tenant = randomUUID();
    const user = randomUUID();
    const visit = async (institution: string, date: string) => {
      const id = randomUUID();
      await record(tenant, `communication-${id}`, 'CommunicationCreated', {
        ...fields(id, institution, user, { acted_date: date }),
        tasks: [],
      });
    };
    for (const [i, date] of [
      [0, '2025-04-03'],
      [0, '2025-05-20'],
      [1, '2025-05-21'],
      [2, '2025-06-30'],
    ] as const)
      await visit(institutions[i]!.id, date);
    await settle();
    const other = institutions.find((i) => i.facility_type !== institutions[0]!.facility_type)!;
    const chart = async () =>
      values(
        (
          await post(tenant, '/api/charts/visits', {
            period: { from: '2025-04-01', to: '2025-06-30' },
            facility_type_ids: [institutions[0]!.facility_type],
          })
        ).json<ChartData>(),
        'visits',
      );
    const raw = async () => {
      const { rows } = await sql<{ m: string; n: number }>`
        SELECT to_char(c.acted_date, 'YYYY-MM') AS m, count(*)::int AS n
          FROM rm.communications c JOIN ref.medical_institutions m ON m.id = c.medical_institution_id
         WHERE c.tenant_id = ${tenant} AND m.facility_type_id::text = ${institutions[0]!.facility_type}
         GROUP BY 1`.execute(db.kysely);
      return ['2025-04', '2025-05', '2025-06'].map((month) => rows.find((r) => r.m === month)?.n ?? 0);
    };
    const first = await chart();
    expect(first).toEqual(await raw());
    const { rows: summed } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM rm.visit_attribute_monthly_rollups WHERE tenant_id = ${tenant}`.execute(db.kysely);
    expect(summed[0]!.n).toBeGreaterThan(0);

    // A sync moves institution 0 to another facility type: as a sync does, its run is recorded first.
    const before = institutions[0]!.facility_type;
    const sync = async (facilityType: string) => {
      await sql`INSERT INTO ref.sync_runs (id, source, full_sync, status, finished_at)
                VALUES (${randomUUID()}, 'test', false, 'completed', now())`.execute(db.kysely);
      await sql`UPDATE ref.medical_institutions SET facility_type_id = ${Number(facilityType)}
                 WHERE id = ${institutions[0]!.id}`.execute(db.kysely);
    };
    await sync(other.facility_type);
    try {
      // The rollups were summed against the old master: the chart reads the visits themselves.
      expect(await chart()).toEqual(await raw());
      expect(await raw()).not.toEqual(first);
      // The next batch of the tenant sums its months again against the master as it is now.
      await visit(institutions[2]!.id, '2025-06-01');
      await settle();
      const { rows: basis } = await sql<{ ok: boolean }>`
        SELECT b.master_runs = (SELECT count(*)::int FROM ref.sync_runs WHERE kind = 'medical_institutions') AS ok
          FROM rm.visit_attribute_bases b WHERE b.tenant_id = ${tenant}`.execute(db.kysely);
      expect(basis[0]!.ok).toBe(true);
      expect(await chart()).toEqual(await raw());
    } finally {
      await sync(before);
    }
  });
});
