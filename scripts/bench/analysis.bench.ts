import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createPostgresEventStore } from '../../libs/event-store/src/index.ts';
import { generateInstitutionMaster, importInstitutionMaster } from '../../libs/institution-master/src/index.ts';
import { catchUpProjections } from '../../libs/projections/src/index.ts';
import {
  rebuildTenantAnalysisRollups,
  rebuildTenantYearToMonthRollups,
  referralsProjection,
} from '../../libs/read-models/src/referrals/referrals.projection.ts';
import {
  dayAndMdcRollupTables,
  rebuildTenantDayAndMdcRollups,
  rebuildTenantInstitutionDailyRollups,
  rebuildTenantInstitutionMdcRollups,
} from '../../libs/read-models/src/referrals/referrals.daily-rollups.ts';
import {
  attributeRollupTables,
  rebuildTenantAttributeRollups,
} from '../../libs/read-models/src/referrals/referrals.attribute-rollups.ts';
import { createTables } from '../../libs/read-models/src/shared/table.ts';
import { queryProjections } from '../../services/query/src/index.ts';
import { percentile, round } from './http-bench-support.ts';
import { startQueryBenchApp } from './query-bench-app.ts';
import { runIfMain, type BenchContext, type BenchDefinition, type BenchFigure } from './bench-context.ts';
import { seedReferralFacts } from './referral-facts-seed.ts';

const REFERRALS = Number(process.env.BENCH_ANALYSIS_REFERRALS ?? 5_000_000);
const INSTITUTIONS = Number(process.env.BENCH_ANALYSIS_INSTITUTIONS ?? 20_000);
const SAMPLES = Number(process.env.BENCH_ANALYSIS_SAMPLES ?? 30);
// A raw GROUP BY over millions of facts takes seconds: it runs every n-th sample only (still alternating).
const RAW_EVERY = Number(process.env.BENCH_ANALYSIS_RAW_EVERY ?? 1);
// With BENCH_DATABASE_URL naming a database an earlier run seeded (its process stopped before the drop):
// measure on its data instead of seeding again, which takes a quarter of an hour at 5,000,000.
const REUSE = process.env.BENCH_ANALYSIS_REUSE === '1';
// With REUSE: build the rollups again from the facts there (after a rollup change, or a seed stopped mid-build).
const REBUILD = process.env.BENCH_ANALYSIS_REBUILD === '1';

/**
 * The facts of one tenant written straight into the referrals read model's tables (what three 年度 of
 * monthly uploads leave there: referrals, the stays that followed 40 % of them, reverse referrals),
 * skewed as real referrers are (a few institutions send most), then the analysis rollups built by the
 * projection's own statement over every month. Seeding through events would take hours at this size.
 */
async function seed(db: Awaited<ReturnType<BenchContext['openDatabase']>>, tenantId: string, departments: string[]) {
  const q = (text: string, values: unknown[] = []) => db.pool.query(text, values);
  await q(
    'CREATE TEMP TABLE bench_institutions AS SELECT row_number() OVER (ORDER BY code) - 1 AS n, id FROM ref.medical_institutions LIMIT $1',
    [INSTITUTIONS],
  );
  await q('CREATE INDEX ON bench_institutions (n)');
  await seedReferralFacts(q, {
    tenantId,
    departments,
    institutions: INSTITUTIONS,
    referrals: REFERRALS,
    step: 500_000,
  });
  await buildRollups(db, tenantId);
}

/** The analysis rollups of the tenant's facts, one 年度 at a time, by the projection's own statements. */
async function buildRollups(db: Awaited<ReturnType<BenchContext['openDatabase']>>, tenantId: string) {
  // Statistics of the facts just written: without them the planner guesses a few rows.
  await db.pool.query('ANALYZE');
  // The live tables through their views.
  const t = Object.fromEntries(referralsProjection.tables.map((name) => [name, `rm.${name}`])) as Parameters<
    typeof rebuildTenantAnalysisRollups
  >[1];
  // One 年度 at a time, through the views of the live tables.
  // BENCH_ANALYSIS_YEARS (e.g. 2024,2025): only those 年度 (what the cases read), when time is short.
  const years = (process.env.BENCH_ANALYSIS_YEARS ?? '2023,2024,2025,2026').split(',').map(Number);
  for (const fy of years)
    await db.kysely
      .transaction()
      .execute((trx) => rebuildTenantAnalysisRollups(trx, t, tenantId, { from: `${fy}-04-01`, to: `${fy + 1}-04-01` }));
  await buildDayAndMdcRollups(db, tenantId, years);
  await buildAttributeRollups(db, tenantId);
}

/**
 * The rollups keyed by the master's facility type and prefecture, from the per-institution rows (which
 * must be built), by the statements a batch runs after a master sync. A database seeded before they
 * existed (BENCH_ANALYSIS_REUSE) gets their tables and views here.
 */
async function buildAttributeRollups(db: Awaited<ReturnType<BenchContext['openDatabase']>>, tenantId: string) {
  for (const table of attributeRollupTables) {
    const { rows } = await db.pool.query<{ present: boolean }>(
      `SELECT to_regclass('rm.${table.name}') IS NOT NULL AS present`,
    );
    if (rows[0]!.present) continue;
    const physical = { [table.name]: `rm.${table.name}_bench` } as Record<typeof table.name, string>;
    await db.kysely.transaction().execute((trx) => createTables(trx, [table], physical));
    await db.pool.query(`CREATE VIEW rm.${table.name} AS SELECT * FROM rm.${table.name}_bench`);
  }
  const t = Object.fromEntries(
    [
      'referral_period_rollups',
      'referral_daily_rollups',
      'referral_institution_mdc_rollups',
      ...attributeRollupTables.map((table) => table.name),
    ].map((name) => [name, `rm.${name}`]),
  ) as Parameters<typeof rebuildTenantAttributeRollups>[1];
  const t0 = performance.now();
  await db.kysely.transaction().execute((trx) => rebuildTenantAttributeRollups(trx, t, tenantId));
  console.log(`attribute rollups built in ${round((performance.now() - t0) / 1000)} s`);
}

/**
 * The day and MDC rollups, in their own transactions after the others. A database seeded before they
 * existed (BENCH_ANALYSIS_REUSE) gets their tables and views here, beside the live build's.
 */
async function buildDayAndMdcRollups(
  db: Awaited<ReturnType<BenchContext['openDatabase']>>,
  tenantId: string,
  years: number[],
  only?: 'mdc' | 'institution-daily',
) {
  for (const table of dayAndMdcRollupTables) {
    const { rows } = await db.pool.query<{ present: boolean }>(
      `SELECT to_regclass('rm.${table.name}') IS NOT NULL AS present`,
    );
    if (rows[0]!.present) continue;
    const physical = { [table.name]: `rm.${table.name}_bench` } as Record<typeof table.name, string>;
    await db.kysely.transaction().execute((trx) => createTables(trx, [table], physical));
    await db.pool.query(`CREATE VIEW rm.${table.name} AS SELECT * FROM rm.${table.name}_bench`);
  }
  const t = {
    referrals: 'rm.referrals',
    reverse_referrals: 'rm.reverse_referrals',
    hospital_admissions: 'rm.hospital_admissions',
    referral_case_rollups: 'rm.referral_case_rollups',
    referral_daily_rollups: 'rm.referral_daily_rollups',
    referral_tenant_daily_rollups: 'rm.referral_tenant_daily_rollups',
    referral_institution_mdc_rollups: 'rm.referral_institution_mdc_rollups',
    referral_institution_daily_rollups: 'rm.referral_institution_daily_rollups',
  };
  const rebuild =
    only === 'mdc'
      ? rebuildTenantInstitutionMdcRollups
      : only === 'institution-daily'
        ? rebuildTenantInstitutionDailyRollups
        : rebuildTenantDayAndMdcRollups;
  for (const fy of years)
    await db.kysely
      .transaction()
      .execute((trx) => rebuild(trx, t, tenantId, { from: `${fy}-04-01`, to: `${fy + 1}-04-01` }));
}

/**
 * The analysis calls of /data_analysis on one tenant with REFERRALS referrals over three 年度 and
 * INSTITUTIONS referring institutions: each call's p50/p95 over HTTP against the same figures computed
 * by a raw GROUP BY over the facts in the same run, alternating call and baseline so both see the same
 * machine. The answers are compared before timing. Goals (issue 13): p95 ≤ 50 ms for charts and
 * rankings, ≤ 150 ms for a three-key aggregation, and ≥ 10× faster than the raw GROUP BY.
 */
export const bench: BenchDefinition = {
  name: 'analysis',
  description: `referral charts, rankings and aggregation on ${REFERRALS.toLocaleString()} referrals, ${INSTITUTIONS.toLocaleString()} institutions`,
  async run(ctx: BenchContext): Promise<BenchFigure[]> {
    const figures: BenchFigure[] = [];
    const db = await ctx.openDatabase({ poolMax: 8 });
    const store = await createPostgresEventStore(db);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-bench-analysis-'));
    try {
      const file = path.join(dir, 'master.csv');
      await generateInstitutionMaster(file, {
        count: INSTITUTIONS,
        seed: 42,
        prefecture: 'all',
        encoding: 'shift_jis',
      });
      let tenantId: string = randomUUID();
      let departments: string[] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
      if (REUSE) {
        const { rows } = await db.pool.query<{ tenant_id: string; ids: string[] }>(
          `SELECT tenant_id, array_agg(DISTINCT own_department_id) FILTER (WHERE own_department_id IS NOT NULL) AS ids
             FROM (SELECT * FROM rm.referrals LIMIT 10000) r GROUP BY 1 LIMIT 1`,
        );
        tenantId = rows[0]!.tenant_id;
        departments = rows[0]!.ids.filter((id) => id !== '00000000-0000-0000-0000-000000000000');
      } else await importInstitutionMaster(db, file);
      if (!REUSE)
        await catchUpProjections({
          db,
          store,
          projections: queryProjections,
          until: await store.headPosition(),
          timeoutMs: 60_000,
        });
      const { rows: commonType } = await db.pool.query<{ id: string }>(
        'SELECT facility_type_id::text AS id FROM ref.medical_institutions GROUP BY 1 ORDER BY count(*) DESC LIMIT 1',
      );
      const facilityType = commonType[0]!.id;
      const { rows: commonPrefecture } = await db.pool.query<{ code: string }>(
        `SELECT lpad(prefecture_code::text, 2, '0') AS code FROM ref.medical_institutions
          WHERE prefecture_code IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`,
      );
      const prefecture = commonPrefecture[0]!.code;
      // The municipality with the most institutions (as the area filter names it: the master's city, NFKC).
      const { rows: commonCity } = await db.pool.query<{ city: string }>(
        `SELECT city FROM ref.medical_institutions WHERE city <> '' GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`,
      );
      const city = commonCity[0]!.city;
      const t0 = performance.now();
      // BENCH_ANALYSIS_REBUILD=daily (or mdc, institution-daily): only the day and MDC rollups (or the
      // MDC ones, the institution-day ones), on a database seeded before they existed.
      const rebuildOnly = process.env.BENCH_ANALYSIS_REBUILD;
      if (REUSE && rebuildOnly === 'year-to-month') {
        // BENCH_ANALYSIS_REBUILD=year-to-month: only the per-institution 年度-to-month totals (v11), from
        // the month rows already there.
        for (const fy of (process.env.BENCH_ANALYSIS_YEARS ?? '2023,2024,2025,2026').split(',').map(Number))
          await db.kysely
            .transaction()
            .execute((trx) =>
              rebuildTenantYearToMonthRollups(
                trx,
                { referral_institution_rollups: 'rm.referral_institution_rollups' },
                tenantId,
                { from: `${fy}-04-01`, to: `${fy + 1}-04-01` },
              ),
            );
        await db.pool.query('VACUUM ANALYZE rm.referral_institution_rollups');
      } else if (REUSE && rebuildOnly === 'attribute') {
        // BENCH_ANALYSIS_REBUILD=attribute: only the facility-type and prefecture rollups.
        await buildAttributeRollups(db, tenantId);
        await db.pool.query('VACUUM ANALYZE');
      } else if (REUSE && (rebuildOnly === 'daily' || rebuildOnly === 'mdc' || rebuildOnly === 'institution-daily')) {
        await buildDayAndMdcRollups(
          db,
          tenantId,
          (process.env.BENCH_ANALYSIS_YEARS ?? '2023,2024,2025,2026').split(',').map(Number),
          rebuildOnly === 'daily' ? undefined : rebuildOnly,
        );
        await db.pool.query('VACUUM ANALYZE');
      } else if (!REUSE || REBUILD) {
        if (REUSE) await buildRollups(db, tenantId);
        else await seed(db, tenantId, departments);
        await db.pool.query('VACUUM ANALYZE');
      }
      const { rows: sizes } = await db.pool.query<{ facts: string; period: string; cases: string }>(
        `SELECT (SELECT count(*) FROM rm.referrals) AS facts, (SELECT count(*) FROM rm.referral_period_rollups) AS period,
                (SELECT count(*) FROM rm.referral_case_rollups) AS cases`,
      );
      ctx.log(
        `seeded ${sizes[0]!.facts} referrals (rollup rows: ${sizes[0]!.period} period, ${sizes[0]!.cases} case mix) in ${round((performance.now() - t0) / 1000)} s`,
      );

      const { app, client, headers } = await startQueryBenchApp(db, tenantId, { sockets: 1 });
      // The institution that refers most: the CRM page's chart of a big referrer.
      const { rows: topRows } = await db.pool.query<{ id: string }>(
        `SELECT medical_institution_id AS id FROM rm.referral_institution_rollups
          WHERE tenant_id = $1 AND span = 'fiscal_year' ORDER BY referral_count DESC LIMIT 1`,
        [tenantId],
      );
      const topInstitution = topRows[0]!.id;
      const fy2025 = { from: '2025-04-01', to: '2026-03-31' };
      const ytd2025 = { from: '2025-04-01', to: '2025-11-20' };
      const admitted = `EXISTS (SELECT 1 FROM rm.hospital_admissions a WHERE a.tenant_id = r.tenant_id AND a.referral_id = r.id)`;
      const operated = `EXISTS (SELECT 1 FROM rm.hospital_admissions a WHERE a.tenant_id = r.tenant_id AND a.referral_id = r.id AND a.kcode IS NOT NULL)`;

      // The raw GROUP BY of a monthly chart's three series (referrals, admitted, operated) filtered by the master.
      const areaBaseline = (period: { from: string; to: string }, where: string, values: unknown[]) => ({
        text: `SELECT to_char(referral_date, 'YYYY-MM') AS m, count(*)::int AS n, count(*) FILTER (WHERE ${admitted})::int AS a,
                      count(*) FILTER (WHERE ${operated})::int AS o
                 FROM rm.referrals r JOIN ref.medical_institutions m ON m.id = r.medical_institution_id
                WHERE tenant_id = $1 AND referral_date BETWEEN $2 AND $3 AND ${where} GROUP BY 1 ORDER BY 1`,
        values: [tenantId, period.from, period.to, ...values],
      });
      // Month by month, each of the three series.
      const sameByMonth =
        (period: { from: string; to: string }) =>
        (a: any, rows: any[]): [unknown, unknown] => {
          const months = a.series[0].values.map((_: unknown, i: number) => {
            const d = new Date(Date.UTC(Number(period.from.slice(0, 4)), Number(period.from.slice(5, 7)) - 1 + i, 1));
            return d.toISOString().slice(0, 7);
          });
          const byMonth = new Map(rows.map((r) => [r.m, r]));
          return [
            a.series.map((s: any) => s.values.map((v: number | null) => v ?? 0)),
            ['n', 'a', 'o'].map((k) => months.map((m: string) => byMonth.get(m)?.[k] ?? 0)),
          ];
        };
      type Case = {
        label: string;
        url: string;
        body: object;
        goalMs: number;
        baseline: { text: string; values: unknown[] };
        /** The call's answer and the baseline's rows as one comparable figure each. */
        same: (answer: any, rows: any[]) => [unknown, unknown];
      };
      const cases: Case[] = [
        {
          label: 'charts/referrals (年度 by month, 3 series)',
          url: '/api/charts/referrals',
          body: { period: fy2025 },
          goalMs: 50,
          baseline: {
            text: `SELECT to_char(referral_date, 'YYYY-MM') AS m, count(*)::int AS n, count(*) FILTER (WHERE ${admitted})::int AS a,
                          count(*) FILTER (WHERE ${operated})::int AS o
                     FROM rm.referrals r WHERE tenant_id = $1 AND referral_date BETWEEN $2 AND $3 GROUP BY 1 ORDER BY 1`,
            values: [tenantId, fy2025.from, fy2025.to],
          },
          same: (a, rows) => [
            a.series.map((s: any) => s.values.reduce((x: number, v: number | null) => x + (v ?? 0), 0)),
            ['n', 'a', 'o'].map((k) => rows.reduce((x, r) => x + r[k], 0)),
          ],
        },
        {
          // The page's default: this 年度 to a day inside a month, whose partial month the facts answer.
          label: 'charts/referrals (年度 to date, partial last month)',
          url: '/api/charts/referrals',
          body: { period: ytd2025 },
          goalMs: 50,
          baseline: {
            text: `SELECT to_char(referral_date, 'YYYY-MM') AS m, count(*)::int AS n, count(*) FILTER (WHERE ${admitted})::int AS a,
                          count(*) FILTER (WHERE ${operated})::int AS o
                     FROM rm.referrals r WHERE tenant_id = $1 AND referral_date BETWEEN $2 AND $3 GROUP BY 1 ORDER BY 1`,
            values: [tenantId, ytd2025.from, ytd2025.to],
          },
          same: (a, rows) => [
            a.series.map((s: any) => s.values.reduce((x: number, v: number | null) => x + (v ?? 0), 0)),
            ['n', 'a', 'o'].map((k) => rows.reduce((x, r) => x + r[k], 0)),
          ],
        },
        {
          label: 'referral_reports/aggregation_results (年度 to date, partial last month, by own department)',
          url: '/api/referral_reports/aggregation_results',
          body: { filter_conditions: { period: ytd2025 }, grouping_conditions: ['own_department'] },
          goalMs: 150,
          baseline: {
            text: `SELECT coalesce(own_department_id::text, '') AS d, count(*)::int AS n
                     FROM rm.referrals r WHERE tenant_id = $1 AND medical_institution_id IS NOT NULL
                      AND referral_date BETWEEN $2 AND $3 GROUP BY 1`,
            values: [tenantId, ytd2025.from, ytd2025.to],
          },
          same: (a, rows) => [
            a.data.reduce((x: number, r: any) => x + r.referral_count, 0),
            rows.reduce((x, r) => x + r.n, 0),
          ],
        },
        {
          label: 'charts/referrals (filtered: department, visit, facility type)',
          url: '/api/charts/referrals',
          body: {
            period: fy2025,
            own_department_ids: [departments[0]],
            visit: 'first_visit',
            facility_type_ids: [facilityType],
          },
          goalMs: 50,
          baseline: {
            text: `SELECT to_char(referral_date, 'YYYY-MM') AS m, count(*)::int AS n
                     FROM rm.referrals r JOIN ref.medical_institutions m ON m.id = r.medical_institution_id
                    WHERE tenant_id = $1 AND referral_date BETWEEN $2 AND $3 AND own_department_id = $4 AND first_visit
                      AND m.facility_type_id::text = $5 GROUP BY 1`,
            values: [tenantId, fy2025.from, fy2025.to, departments[0], facilityType],
          },
          same: (a, rows) => [
            a.series[0].values.reduce((x: number, v: number | null) => x + (v ?? 0), 0),
            rows.reduce((x, r) => x + r.n, 0),
          ],
        },
        ...(
          [
            ['年度 by month', fy2025],
            ['年度 to date', ytd2025],
          ] as const
        ).flatMap(([name, period]): Case[] => [
          {
            // Whole months from the rows keyed by facility type, prefecture and city together, the partial
            // last month (年度 to date) from the day rows of the city's institutions.
            label: `charts/referrals (${name}, one city)`,
            url: '/api/charts/referrals',
            body: { period, cities: [city] },
            goalMs: 50,
            baseline: areaBaseline(period, 'm.city = $4', [city]),
            same: sameByMonth(period),
          },
          {
            label: `charts/referrals (${name}, facility type + prefecture)`,
            url: '/api/charts/referrals',
            body: { period, facility_type_ids: [facilityType], prefectures: [prefecture] },
            goalMs: 50,
            baseline: areaBaseline(period, 'm.facility_type_id = $4::int AND m.prefecture_code = $5::smallint', [
              Number(facilityType),
              Number(prefecture),
            ]),
            same: sameByMonth(period),
          },
        ]),
        {
          // An area filter with a referral dimension: the partial last month from the area day rows keyed
          // by own department, referral department and visit too (v13; before, one probe per institution).
          label: 'charts/referrals (年度 to date, own department, facility type + prefecture)',
          url: '/api/charts/referrals',
          body: {
            period: ytd2025,
            own_department_ids: [departments[0]],
            facility_type_ids: [facilityType],
            prefectures: [prefecture],
          },
          goalMs: 50,
          baseline: areaBaseline(
            ytd2025,
            'own_department_id = $4 AND m.facility_type_id = $5::int AND m.prefecture_code = $6::smallint',
            [departments[0], Number(facilityType), Number(prefecture)],
          ),
          same: sameByMonth(ytd2025),
        },
        {
          // The same class with a municipality and the visit filter.
          label: 'charts/referrals (年度 to date, first visit, one city)',
          url: '/api/charts/referrals',
          body: { period: ytd2025, visit: 'first_visit', cities: [city] },
          goalMs: 50,
          baseline: areaBaseline(ytd2025, 'first_visit AND m.city = $4', [city]),
          same: sameByMonth(ytd2025),
        },
        {
          // The page's default period with an area filter: whole months from the prefecture rows, the
          // partial last month from the per-institution rows.
          label: 'charts/referrals (年度 to date, own department, prefecture)',
          url: '/api/charts/referrals',
          body: { period: ytd2025, own_department_ids: [departments[1]], prefectures: [prefecture] },
          goalMs: 50,
          baseline: {
            text: `SELECT to_char(referral_date, 'YYYY-MM') AS m, count(*)::int AS n
                     FROM rm.referrals r JOIN ref.medical_institutions m ON m.id = r.medical_institution_id
                    WHERE tenant_id = $1 AND referral_date BETWEEN $2 AND $3 AND own_department_id = $4
                      AND m.prefecture_code = $5::smallint GROUP BY 1`,
            values: [tenantId, ytd2025.from, ytd2025.to, departments[1], Number(prefecture)],
          },
          same: (a, rows) => [
            a.series[0].values.reduce((x: number, v: number | null) => x + (v ?? 0), 0),
            rows.reduce((x, r) => x + r.n, 0),
          ],
        },
        {
          label: 'charts/referrals/comparison/departments (year to date)',
          url: '/api/charts/referrals/comparison/departments',
          body: { period: fy2025, comparison_period: { from: '2024-04-01', to: '2025-03-31' } },
          goalMs: 50,
          baseline: {
            text: `SELECT own_department_id, count(*) FILTER (WHERE referral_date >= $2)::int AS n, count(*) FILTER (WHERE referral_date < $2)::int AS c
                     FROM rm.referrals r WHERE tenant_id = $1 AND referral_date BETWEEN '2024-04-01' AND $3 GROUP BY 1`,
            values: [tenantId, fy2025.from, fy2025.to],
          },
          same: (a, rows) => [
            a.series[0].values.reduce((x: number, v: number) => x + v, 0),
            rows.reduce((x, r) => x + r.n, 0),
          ],
        },
        {
          label: 'ranking/referral/monthly (top 50)',
          url: '/api/data_analysis/ranking/referral/monthly',
          body: { period: fy2025, limit: 50 },
          goalMs: 50,
          baseline: {
            text: `WITH t AS (SELECT medical_institution_id, count(*)::int AS n FROM rm.referrals
                               WHERE tenant_id = $1 AND referral_date BETWEEN $2 AND $3 GROUP BY 1 ORDER BY n DESC LIMIT 50)
                   SELECT r.medical_institution_id, to_char(referral_date, 'YYYY-MM') AS m, count(*)::int AS n
                     FROM rm.referrals r JOIN t USING (medical_institution_id)
                    WHERE tenant_id = $1 AND referral_date BETWEEN $2 AND $3 GROUP BY 1, 2`,
            values: [tenantId, fy2025.from, fy2025.to],
          },
          same: (a, rows) => [a.data.reduce((x: number, d: any) => x + d.total, 0), rows.reduce((x, r) => x + r.n, 0)],
        },
        {
          // The page's ranking: this 年度 to a day inside a month, top 500 (its change is a second call).
          label: 'ranking/referral/total_count (年度 to date, top 500)',
          url: '/api/data_analysis/ranking/referral/total_count',
          body: { period: ytd2025, limit: 500 },
          goalMs: 50,
          baseline: {
            text: `SELECT medical_institution_id, count(*)::int AS n FROM rm.referrals
                    WHERE tenant_id = $1 AND referral_date BETWEEN $2 AND $3 AND medical_institution_id IS NOT NULL
                    GROUP BY 1 ORDER BY n DESC LIMIT 500`,
            values: [tenantId, ytd2025.from, ytd2025.to],
          },
          same: (a, rows) => [a.data.slice(0, 500).map((d: any) => d.total), rows.map((r) => r.n)],
        },
        {
          label: 'ranking/referral/monthly (top 50, facility type)',
          url: '/api/data_analysis/ranking/referral/monthly',
          body: { period: fy2025, limit: 50, facility_type_ids: [facilityType] },
          goalMs: 50,
          baseline: {
            text: `SELECT r.medical_institution_id, count(*)::int AS n
                     FROM rm.referrals r JOIN ref.medical_institutions m ON m.id = r.medical_institution_id
                    WHERE tenant_id = $1 AND referral_date BETWEEN $2 AND $3 AND m.facility_type_id::text = $4
                    GROUP BY 1 ORDER BY n DESC LIMIT 50`,
            values: [tenantId, fy2025.from, fy2025.to, facilityType],
          },
          same: (a, rows) => [a.data.map((d: any) => d.total), rows.map((r) => r.n)],
        },
        {
          label: 'charts/medical_institutions/{id}/referrals (the biggest referrer, 年度 by month)',
          url: `/api/charts/medical_institutions/${topInstitution}/referrals`,
          body: { period: fy2025 },
          goalMs: 50,
          baseline: {
            text: `SELECT to_char(referral_date, 'YYYY-MM') AS m, count(*)::int AS n
                     FROM rm.referrals r WHERE tenant_id = $1 AND medical_institution_id = $4 AND referral_date BETWEEN $2 AND $3
                    GROUP BY 1`,
            values: [tenantId, fy2025.from, fy2025.to, topInstitution],
          },
          same: (a, rows) => [
            a.series
              .find((s: any) => s.key === 'referrals')
              .values.reduce((x: number, v: number | null) => x + (v ?? 0), 0),
            rows.reduce((x, r) => x + r.n, 0),
          ],
        },
        {
          label: 'ranking/both_referrals/monthly (top 50)',
          url: '/api/data_analysis/ranking/both_referrals/monthly',
          body: { period: fy2025, limit: 50 },
          goalMs: 50,
          baseline: {
            text: `SELECT medical_institution_id, sum(n)::int AS n, sum(v)::int AS v FROM (
                     SELECT medical_institution_id, 1 AS n, 0 AS v FROM rm.referrals WHERE tenant_id = $1 AND referral_date BETWEEN $2 AND $3
                     UNION ALL SELECT medical_institution_id, 0, 1 FROM rm.reverse_referrals WHERE tenant_id = $1 AND reverse_referral_date BETWEEN $2 AND $3) f
                    GROUP BY 1 ORDER BY 2 DESC, 3 DESC LIMIT 50`,
            values: [tenantId, fy2025.from, fy2025.to],
          },
          same: (a, rows) => [a.data.map((d: any) => d.referral_total), rows.map((r) => r.n)],
        },
        {
          // Grouped by facts of the institution (per-institution rows); institution × month × MDC answers a
          // row per institution-month at this size, which no screen shows.
          label: 'referral_reports/aggregation_results (facility type × prefecture × MDC)',
          url: '/api/referral_reports/aggregation_results',
          body: { filter_conditions: { period: fy2025 }, grouping_conditions: ['facility_type', 'prefecture', 'mdc'] },
          goalMs: 150,
          baseline: {
            text: `SELECT m.facility_type_id, m.prefecture, s.mdc, count(*)::int AS n,
                          count(s.mdc)::int AS a, count(*) FILTER (WHERE ${operated})::int AS o
                     FROM rm.referrals r JOIN ref.medical_institutions m ON m.id = r.medical_institution_id
                     LEFT JOIN LATERAL (SELECT left(a.dpc_code, 2) AS mdc FROM rm.hospital_admissions a
                                         WHERE a.tenant_id = r.tenant_id AND a.referral_id = r.id ORDER BY a.admission_date, a.id LIMIT 1) s ON true
                    WHERE tenant_id = $1 AND referral_date BETWEEN $2 AND $3 GROUP BY 1, 2, 3`,
            values: [tenantId, fy2025.from, fy2025.to],
          },
          same: (a, rows) => [
            [a.data.length, a.data.reduce((x: number, d: any) => x + d.hospital_admission_count, 0)],
            [rows.length, rows.reduce((x, r) => x + r.a, 0)],
          ],
        },
        {
          label: 'referral_reports/aggregation_results (own department × month × MDC)',
          url: '/api/referral_reports/aggregation_results',
          body: { filter_conditions: { period: fy2025 }, grouping_conditions: ['own_department', 'month', 'mdc'] },
          goalMs: 150,
          baseline: {
            text: `SELECT r.own_department_id, to_char(referral_date, 'YYYY-MM') AS m, s.mdc, count(*)::int AS n,
                          count(s.mdc)::int AS a, count(*) FILTER (WHERE ${operated})::int AS o
                     FROM rm.referrals r
                     LEFT JOIN LATERAL (SELECT left(a.dpc_code, 2) AS mdc FROM rm.hospital_admissions a
                                         WHERE a.tenant_id = r.tenant_id AND a.referral_id = r.id ORDER BY a.admission_date, a.id LIMIT 1) s ON true
                    WHERE tenant_id = $1 AND referral_date BETWEEN $2 AND $3 GROUP BY 1, 2, 3`,
            values: [tenantId, fy2025.from, fy2025.to],
          },
          same: (a, rows) => [
            [a.data.length, a.data.reduce((x: number, d: any) => x + d.hospital_admission_count, 0)],
            [rows.length, rows.reduce((x, r) => x + r.a, 0)],
          ],
        },
        {
          // Issue 12 §8: the partner search sorted by referral change (this 年度 against the last), one page.
          label: 'medical_institutions/search_results (sorted by rate_of_referral_change, 50 per page)',
          url: '/api/medical_institutions/search_results',
          body: {
            referral_period: fy2025,
            comparison_referral_period: { from: '2024-04-01', to: '2025-03-31' },
            sort_by: 'rate_of_referral_change',
            sort: 'desc',
            per_page: 50,
          },
          goalMs: 100,
          baseline: {
            text: `WITH f AS (
                     SELECT medical_institution_id AS id, count(*) FILTER (WHERE referral_date >= $2)::int AS n,
                            count(*) FILTER (WHERE referral_date < $2)::int AS c
                       FROM rm.referrals WHERE tenant_id = $1 AND referral_date BETWEEN '2024-04-01' AND $3 GROUP BY 1)
                   SELECT m.id, (coalesce(f.n, 0) - f.c)::numeric / nullif(f.c, 0) AS rate
                     FROM ref.medical_institutions m LEFT JOIN f ON f.id = m.id
                    ORDER BY 2 DESC NULLS LAST, m.id DESC LIMIT 50`,
            values: [tenantId, fy2025.from, fy2025.to],
          },
          same: (a, rows) => [
            a.data.map((d: any) => (d.rate_of_referral_change === null ? null : round(d.rate_of_referral_change, 6))),
            rows.map((r) => (r.rate === null ? null : round(Number(r.rate), 6))),
          ],
        },
      ];

      try {
        // BENCH_ANALYSIS_ONLY: only the cases whose label contains it (a re-run of one call), or any of
        // several labels' parts joined by '|'.
        const only = process.env.BENCH_ANALYSIS_ONLY;
        for (const c of cases.filter((x) => !only || only.split('|').some((part) => x.label.includes(part)))) {
          const http: number[] = [];
          const raw: number[] = [];
          for (let i = 0; i < SAMPLES + 3; i++) {
            let s = performance.now();
            const res = await client.request('POST', c.url, headers, c.body);
            const h = performance.now() - s;
            if (res.status !== 200) throw new Error(`${c.label}: ${res.status} ${res.body}`);
            if (i !== 0 && i % RAW_EVERY !== 0) {
              if (i >= 3) http.push(h);
              continue;
            }
            s = performance.now();
            const { rows } = await db.pool.query(c.baseline.text, c.baseline.values);
            const r = performance.now() - s;
            if (i === 0) {
              const [mine, theirs] = c.same(JSON.parse(res.body), rows);
              if (JSON.stringify(mine) !== JSON.stringify(theirs))
                throw new Error(
                  `${c.label}: the answer differs from the raw GROUP BY: ${JSON.stringify(mine)} vs ${JSON.stringify(theirs)}`,
                );
            }
            // The first calls warm caches and plans on both sides.
            if (i >= 3) {
              http.push(h);
              raw.push(r);
            }
          }
          http.sort((a, b) => a - b);
          raw.sort((a, b) => a - b);
          const p95 = percentile(http, 95);
          const rawP50 = percentile(raw, 50);
          figures.push({
            metric: `${c.label} p50`,
            value: round(percentile(http, 50), 1),
            unit: 'ms',
            baseline: { label: 'raw GROUP BY p50', value: round(rawP50, 1), unit: 'ms' },
            ratio: round(rawP50 / percentile(http, 50), 1),
          });
          figures.push({
            metric: `${c.label} p95`,
            value: round(p95, 1),
            unit: 'ms',
            baseline: { label: 'raw GROUP BY p95', value: round(percentile(raw, 95), 1), unit: 'ms' },
            ratio: round(percentile(raw, 95) / p95, 1),
            goal: `p95 ≤ ${c.goalMs} ms, ≥ 10× faster than raw`,
            met: p95 <= c.goalMs && percentile(raw, 95) / p95 >= 10,
          });
          ctx.log(
            `${c.label}: p50 ${round(percentile(http, 50), 1)} ms, p95 ${round(p95, 1)} ms; raw p50 ${round(rawP50, 1)} ms`,
          );
        }
      } finally {
        client.close();
        await app.close();
      }
      return figures;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      await store.close();
      await db.close();
    }
  },
};

await runIfMain(bench, import.meta.url);
