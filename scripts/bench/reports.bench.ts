import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createPostgresEventStore } from '../../libs/event-store/src/index.ts';
import { generateInstitutionMaster, importInstitutionMaster } from '../../libs/institution-master/src/index.ts';
import { catchUpProjections } from '../../libs/projections/src/index.ts';
import {
  rebuildTenantAnalysisRollups,
  referralsProjection,
} from '../../libs/read-models/src/referrals/referrals.projection.ts';
import { rebuildTenantDayAndMdcRollups } from '../../libs/read-models/src/referrals/referrals.daily-rollups.ts';
import { queryProjections } from '../../services/query/src/index.ts';
import { percentile, round } from './http-bench-support.ts';
import { startQueryBenchApp } from './query-bench-app.ts';
import { runIfMain, type BenchContext, type BenchDefinition, type BenchFigure } from './bench-context.ts';
import { seedReferralFacts } from './referral-facts-seed.ts';

const REFERRALS = Number(process.env.BENCH_REPORTS_REFERRALS ?? 750_000);
const INSTITUTIONS = Number(process.env.BENCH_REPORTS_INSTITUTIONS ?? 20_000);
const COMMUNICATIONS = Number(process.env.BENCH_REPORTS_COMMUNICATIONS ?? 240_000);
const SAMPLES = Number(process.env.BENCH_REPORTS_SAMPLES ?? 20);
// With BENCH_DATABASE_URL naming a database an earlier run seeded (its process stopped before the drop):
// measure on its data instead of seeding again.
const REUSE = process.env.BENCH_REPORTS_REUSE === '1';
// BENCH_REPORTS_ONLY: only the cases whose label contains one of these '|'-separated parts.
const ONLY = process.env.BENCH_REPORTS_ONLY;
const GOAL_MS = 1_000;

type Db = Awaited<ReturnType<BenchContext['openDatabase']>>;

/**
 * One tenant's facts written straight into the read models' tables (what three 年度 of monthly uploads
 * and staff activity leave there): REFERRALS referrals skewed over INSTITUTIONS institutions (a few
 * send most), stays after 40 % of them, reverse referrals after 40 %, four own departments (and none),
 * COMMUNICATIONS records by twelve staff members, 60 % of them visits; then the referral rollups built
 * by the projection's own statements. Seeding through events would take hours at this size.
 */
async function seed(db: Db, tenantId: string, departments: string[], users: string[]) {
  const q = (text: string, values: unknown[] = []) => db.pool.query(text, values);
  await q(
    'CREATE TEMP TABLE bench_institutions AS SELECT row_number() OVER (ORDER BY code) - 1 AS n, id FROM ref.medical_institutions LIMIT $1',
    [INSTITUTIONS],
  );
  await q('CREATE INDEX ON bench_institutions (n)');
  await q(
    `INSERT INTO rm.own_departments (tenant_id, id, name, department_id, sort_order)
     SELECT $1, d.id, '診療科' || d.n, NULL, d.n FROM unnest($2::uuid[]) WITH ORDINALITY AS d(id, n)`,
    [tenantId, departments],
  );
  await q(
    `INSERT INTO rm.mi_accounts (tenant_id, account_id, name)
     SELECT $1, u.id, '担当者' || u.n FROM unnest($2::uuid[]) WITH ORDINALITY AS u(id, n)`,
    [tenantId, users],
  );
  await seedReferralFacts(q, {
    tenantId,
    departments,
    institutions: INSTITUTIONS,
    referrals: REFERRALS,
    step: 250_000,
  });
  // Staff visit the institutions that refer most more often (the same skew, milder).
  await q(
    `INSERT INTO rm.communications (tenant_id, id, medical_institution_id, communication_type, acted_date, category, purpose,
       story, event_name, memo, other_memo, person_in_charge_hospital, attendee, is_doctor_attended, user_id, label_values,
       search_text, version, revision, created_at, updated_at)
     SELECT $1, gen_random_uuid(), i.id,
            (ARRAY['visit','visit','visit','new_visit','new_visit','visit','phone','email','other','event_attendance'])[1 + (random() * 9)::int],
            s.d, NULL, NULL, '訪問記録', NULL, '', '', NULL, NULL, random() < 0.3, ($2::uuid[])[1 + (random() * 11)::int],
            '[]', '訪問記録', 1, 1, now(), now()
       FROM (SELECT g, floor(${INSTITUTIONS} * random() ^ 2)::int AS k, DATE '2023-04-01' + (random() * 1095)::int AS d
               FROM generate_series(1, $3::int) g) s
       JOIN bench_institutions i ON i.n = s.k`,
    [tenantId, users, COMMUNICATIONS],
  );
  await q(
    `INSERT INTO rm.visit_sources (tenant_id, communication_id, medical_institution_id, user_id, communication_type,
       acted_date, is_doctor_attended, has_next_action, revision)
     SELECT tenant_id, id, medical_institution_id, user_id, communication_type, acted_date, is_doctor_attended, false, 1
       FROM rm.communications WHERE tenant_id = $1 AND communication_type IN ('visit', 'new_visit')`,
    [tenantId],
  );
  await q(
    `INSERT INTO rm.communication_day_counts (tenant_id, acted_date, communication_type, record_count)
     SELECT tenant_id, acted_date, communication_type, count(*) FROM rm.communications WHERE tenant_id = $1 GROUP BY 1, 2, 3`,
    [tenantId],
  );
  await q(
    `INSERT INTO rm.mi_last_visits (tenant_id, medical_institution_id, last_visit_date)
     SELECT tenant_id, medical_institution_id, max(acted_date) FROM rm.visit_sources WHERE tenant_id = $1 GROUP BY 1, 2`,
    [tenantId],
  );
  await q('ANALYZE');
  const t = Object.fromEntries(referralsProjection.tables.map((name) => [name, `rm.${name}`])) as Parameters<
    typeof rebuildTenantAnalysisRollups
  >[1] &
    Parameters<typeof rebuildTenantDayAndMdcRollups>[1];
  for (const fy of [2023, 2024, 2025, 2026]) {
    const range = { from: `${fy}-04-01`, to: `${fy + 1}-04-01` };
    await db.kysely.transaction().execute((trx) => rebuildTenantAnalysisRollups(trx, t, tenantId, range));
    await db.kysely.transaction().execute((trx) => rebuildTenantDayAndMdcRollups(trx, t, tenantId, range));
  }
  await q('VACUUM ANALYZE');
}

interface Case {
  label: string;
  url: string;
  body: object;
  baseline: { text: string; values: unknown[] };
  /** The call's answer and the baseline's rows as one comparable figure each. */
  same: (answer: any, rows: any[]) => [unknown, unknown];
}

const monthKeys = (from: string, n: number) =>
  Array.from({ length: n }, (_, i) => {
    const d = new Date(Date.UTC(Number(from.slice(0, 4)), Number(from.slice(5, 7)) - 1 + i, 1));
    return d.toISOString().slice(0, 10);
  });

/**
 * The report calls of /reports on one tenant with INSTITUTIONS partner institutions and REFERRALS
 * referrals over three 年度: each call's p50/p95 over HTTP against the same figures computed by a plain
 * GROUP BY over the raw facts (referrals, stays, reverse referrals, visits, communications) in the same
 * run, alternating call and baseline so both see the same machine. Every answer is compared with its
 * baseline's figures before timing. Goals: p95 ≤ 1,000 ms at 20,000 institutions and ≥ 10× faster
 * than the raw GROUP BY.
 */
export const bench: BenchDefinition = {
  name: 'reports',
  description: `report results and aggregation on ${INSTITUTIONS.toLocaleString()} institutions, ${REFERRALS.toLocaleString()} referrals, ${COMMUNICATIONS.toLocaleString()} communications`,
  async run(ctx: BenchContext): Promise<BenchFigure[]> {
    const figures: BenchFigure[] = [];
    const db = await ctx.openDatabase({ poolMax: 8 });
    const store = await createPostgresEventStore(db);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-bench-reports-'));
    try {
      let tenantId: string = randomUUID();
      const t0 = performance.now();
      if (REUSE) {
        const { rows } = await db.pool.query<{ tenant_id: string }>(
          'SELECT tenant_id FROM rm.own_departments GROUP BY 1 ORDER BY count(*) DESC LIMIT 1',
        );
        tenantId = rows[0]!.tenant_id;
      } else {
        const file = path.join(dir, 'master.csv');
        await generateInstitutionMaster(file, {
          count: INSTITUTIONS,
          seed: 42,
          prefecture: 'all',
          encoding: 'shift_jis',
        });
        await importInstitutionMaster(db, file);
        await catchUpProjections({
          db,
          store,
          projections: queryProjections,
          until: await store.headPosition(),
          timeoutMs: 60_000,
        });
        const departments = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
        const users = Array.from({ length: 12 }, () => randomUUID());
        await seed(db, tenantId, departments, users);
      }
      const { rows: sizes } = await db.pool.query<{ r: string; c: string; v: string; i: string }>(
        `SELECT (SELECT count(*) FROM rm.referrals WHERE tenant_id = $1) AS r,
                (SELECT count(*) FROM rm.communications WHERE tenant_id = $1) AS c,
                (SELECT count(*) FROM rm.visit_sources WHERE tenant_id = $1) AS v,
                (SELECT count(DISTINCT medical_institution_id) FROM rm.referral_institution_rollups
                  WHERE tenant_id = $1 AND span = 'fiscal_year') AS i`,
        [tenantId],
      );
      ctx.log(
        `${REUSE ? 'reused' : 'seeded'} ${sizes[0]!.r} referrals, ${sizes[0]!.c} communications (${sizes[0]!.v} visits), ${sizes[0]!.i} referring institutions in ${round((performance.now() - t0) / 1000)} s`,
      );

      const { app, client, headers } = await startQueryBenchApp(db, tenantId, { sockets: 1 });

      const fy2025 = { from: '2025-04-01', to: '2026-03-31' };
      const fy2024 = { from: '2024-04-01', to: '2025-03-31' };
      const months2025 = monthKeys(fy2025.from, 12);
      const months2024 = monthKeys(fy2024.from, 12);
      const admitted = `EXISTS (SELECT 1 FROM rm.hospital_admissions a WHERE a.tenant_id = r.tenant_id AND a.referral_id = r.id)`;
      const settings = (over: object = {}) => ({
        period: fy2025,
        period_unit: 'month',
        unit_type: 'month',
        comparison_period: null,
        own_department_ids: [],
        ...over,
      });
      const item = (item_key: string, aggregation_method: string | null = null) => ({
        item_key,
        label: null,
        aggregation_method,
        formula: null,
      });
      // The raw facts of the institution report: a referral (admitted when a stay followed it), a
      // reverse referral, a visit, each one row dated and attributed to its institution.
      const institutionFacts = (from: string, to: string) => `
        SELECT r.medical_institution_id AS id, r.referral_date AS d, 1 AS n, ${admitted}::int AS a, 0 AS v, 0 AS vis
          FROM rm.referrals r WHERE r.tenant_id = $1 AND r.referral_date BETWEEN '${from}' AND '${to}'
        UNION ALL
        SELECT medical_institution_id, reverse_referral_date, 0, 0, 1, 0
          FROM rm.reverse_referrals WHERE tenant_id = $1 AND reverse_referral_date BETWEEN '${from}' AND '${to}'
        UNION ALL
        SELECT medical_institution_id, acted_date, 0, 0, 0, 1
          FROM rm.visit_sources WHERE tenant_id = $1 AND acted_date BETWEEN '${from}' AND '${to}'`;
      // Per row of the answer's page: its four figures month by month, from the answer and from the raw rows.
      const samePerInstitution =
        (months: string[], comparisonMonths: string[] = []) =>
        (a: any, rows: any[]): [unknown, unknown] => {
          const raw = new Map(rows.map((r) => [`${r.id}|${r.m}`, r]));
          const keys = ['referral_count', 'hospital_admission_count', 'reverse_referral_count', 'visit_count'];
          const cols = ['n', 'a', 'v', 'vis'];
          const mine = a.rows.map((row: any) => [
            row.id,
            keys.map((k) => months.map((m) => row[`${k}@${m}`] ?? 0)),
            comparisonMonths.length > 0 ? keys.map((k) => row[`${k}@comparison`] ?? 0) : [],
          ]);
          const theirs = a.rows.map((row: any) => [
            row.id,
            cols.map((c) => months.map((m) => raw.get(`${row.id}|${m}`)?.[c] ?? 0)),
            comparisonMonths.length > 0
              ? cols.map((c) => comparisonMonths.reduce((x, m) => x + (raw.get(`${row.id}|${m}`)?.[c] ?? 0), 0))
              : [],
          ]);
          // The page must hold the biggest referrers of the raw facts in the same order.
          return [
            [a.meta.total_count >= a.rows.length, mine],
            [true, theirs],
          ];
        };
      const institutionDefinition = (over: object = {}) => ({
        name: 'bench',
        display_items: [
          item('medical_institution_name'),
          item('prefecture'),
          item('facility_type'),
          item('referral_count', 'sum'),
          item('hospital_admission_count', 'sum'),
          item('hospital_admission_rate'),
          item('reverse_referral_count', 'sum'),
          item('visit_count', 'sum'),
        ],
        filter_conditions: [],
        sort_conditions: [{ item_key: 'referral_count', direction: 'desc' }],
        aggregation_settings: settings(over),
      });
      const perInstitutionMonth = (from: string, to: string) => ({
        text: `SELECT id::text AS id, date_trunc('month', d)::date::text AS m, sum(n)::int AS n, sum(a)::int AS a,
                      sum(v)::int AS v, sum(vis)::int AS vis
                 FROM (${institutionFacts(from, to)}) f GROUP BY 1, 2`,
        values: [tenantId],
      });

      const cases: Case[] = [
        {
          label: 'medical_institution_reports/results (年度 by month, referrals + visits, top 100)',
          url: '/api/medical_institution_reports/results',
          body: { definition: institutionDefinition(), page: 1, per_page: 100 },
          baseline: perInstitutionMonth(fy2025.from, fy2025.to),
          same: samePerInstitution(months2025),
        },
        {
          label: 'medical_institution_reports/results (same, with comparison 年度)',
          url: '/api/medical_institution_reports/results',
          body: { definition: institutionDefinition({ comparison_period: fy2024 }), page: 1, per_page: 100 },
          baseline: perInstitutionMonth(fy2024.from, fy2025.to),
          same: samePerInstitution(months2025, months2024),
        },
        {
          label: 'medical_institution_reports/aggregation_results (by prefecture × facility type)',
          url: '/api/medical_institution_reports/aggregation_results',
          body: { definition: institutionDefinition(), grouping_item_keys: ['prefecture', 'facility_type'] },
          baseline: {
            text: `SELECT m.prefecture_code AS p, m.facility_type_id AS t, sum(n)::int AS n, sum(vis)::int AS vis
                     FROM (${institutionFacts(fy2025.from, fy2025.to)}) f JOIN ref.medical_institutions m ON m.id = f.id
                    GROUP BY 1, 2`,
            values: [tenantId],
          },
          // Totals over every group (the groups are keyed by names here, by codes there).
          same: (a, rows) => [
            [a.totals.referral_count, a.totals.visit_count],
            [rows.reduce((x, r) => x + r.n, 0), rows.reduce((x, r) => x + r.vis, 0)],
          ],
        },
        {
          label: 'own_department_reports/results (年度 by month)',
          url: '/api/own_department_reports/results',
          body: {
            definition: {
              name: 'bench',
              display_items: [
                item('own_department_name'),
                item('referral_count', 'sum'),
                item('first_visit_count', 'sum'),
                item('hospital_admission_count', 'sum'),
                item('reverse_referral_count', 'sum'),
                item('referring_institution_count', 'sum'),
              ],
              filter_conditions: [],
              sort_conditions: [],
              aggregation_settings: settings(),
            },
            page: 1,
            per_page: 100,
          },
          baseline: {
            text: `SELECT coalesce(own_department_id, '00000000-0000-0000-0000-000000000000')::text AS id,
                          date_trunc('month', d)::date::text AS m, sum(n)::int AS n, sum(fv)::int AS fv, sum(a)::int AS a,
                          sum(v)::int AS v, count(DISTINCT id_) FILTER (WHERE n > 0)::int AS ri
                     FROM (SELECT r.own_department_id, r.medical_institution_id AS id_, r.referral_date AS d, 1 AS n,
                                  (r.first_visit IS TRUE)::int AS fv, ${admitted}::int AS a, 0 AS v
                             FROM rm.referrals r WHERE r.tenant_id = $1 AND r.referral_date BETWEEN $2 AND $3
                           UNION ALL
                           SELECT own_department_id, medical_institution_id, reverse_referral_date, 0, 0, 0, 1
                             FROM rm.reverse_referrals WHERE tenant_id = $1 AND reverse_referral_date BETWEEN $2 AND $3) f
                    GROUP BY 1, 2`,
            values: [tenantId, fy2025.from, fy2025.to],
          },
          same: (a, rows) => {
            const raw = new Map(rows.map((r) => [`${r.id}|${r.m}`, r]));
            const keys = [
              ['referral_count', 'n'],
              ['first_visit_count', 'fv'],
              ['hospital_admission_count', 'a'],
              ['reverse_referral_count', 'v'],
              ['referring_institution_count', 'ri'],
            ] as const;
            return [
              a.rows.map((row: any) => keys.map(([k]) => months2025.map((m) => row[`${k}@${m}`] ?? 0))),
              a.rows.map((row: any) => keys.map(([, c]) => months2025.map((m) => raw.get(`${row.id}|${m}`)?.[c] ?? 0))),
            ];
          },
        },
        {
          label: 'area_reports/results (年度 by month, referrals + visits)',
          url: '/api/area_reports/results',
          body: {
            definition: {
              name: 'bench',
              display_items: [
                item('prefecture'),
                item('city'),
                item('referral_count', 'sum'),
                item('hospital_admission_count', 'sum'),
                item('referring_institution_count', 'sum'),
                item('visit_count', 'sum'),
              ],
              filter_conditions: [],
              sort_conditions: [{ item_key: 'referral_count', direction: 'desc' }],
              aggregation_settings: settings(),
            },
            page: 1,
            per_page: 1000,
          },
          baseline: {
            text: `SELECT sum(n)::int AS n, sum(a)::int AS a, sum(vis)::int AS vis, count(DISTINCT (f.id, date_trunc('month', d))) FILTER (WHERE n > 0)::int AS ri
                     FROM (${institutionFacts(fy2025.from, fy2025.to)}) f`,
            values: [tenantId],
          },
          // Totals over every area and month (the answer's areas are its first 1,000 of all).
          same: (a, rows) => {
            const total = (k: string) =>
              a.rows.reduce(
                (x: number, row: any) => x + months2025.reduce((y, m) => y + (row[`${k}@${m}`] ?? 0), 0),
                0,
              );
            return [
              a.meta.total_count <= a.meta.per_page
                ? ['referral_count', 'hospital_admission_count', 'visit_count', 'referring_institution_count'].map(
                    total,
                  )
                : 'paged',
              a.meta.total_count <= a.meta.per_page ? [rows[0].n, rows[0].a, rows[0].vis, rows[0].ri] : 'paged',
            ];
          },
        },
        {
          label: 'communication_reports/aggregation_results (年度 by 担当者)',
          url: '/api/communication_reports/aggregation_results',
          body: {
            definition: {
              name: 'bench',
              display_items: [
                item('acted_at'),
                item('communication_type'),
                item('user'),
                item('medical_institution_name'),
              ],
              filter_conditions: [],
              sort_conditions: [],
              aggregation_settings: settings(),
            },
            grouping_item_keys: ['user'],
          },
          baseline: {
            text: `SELECT a.name AS u, count(*)::int AS n, count(DISTINCT c.medical_institution_id)::int AS i
                     FROM rm.communications c JOIN rm.mi_accounts a ON a.tenant_id = c.tenant_id AND a.account_id = c.user_id
                    WHERE c.tenant_id = $1 AND c.acted_date BETWEEN $2 AND $3 GROUP BY 1 ORDER BY 1`,
            values: [tenantId, fy2025.from, fy2025.to],
          },
          same: (a, rows) => [
            [...a.rows]
              .sort((x: any, y: any) => (x.user < y.user ? -1 : 1))
              .map((r: any) => [r.user, r.row_count, r.medical_institution_count]),
            rows.map((r) => [r.u, r.n, r.i]),
          ],
        },
      ];

      try {
        for (const c of cases.filter((x) => !ONLY || ONLY.split('|').some((part) => x.label.includes(part)))) {
          const http: number[] = [];
          const raw: number[] = [];
          for (let i = 0; i < SAMPLES + 3; i++) {
            let s = performance.now();
            const res = await client.request('POST', c.url, headers, c.body);
            const h = performance.now() - s;
            if (res.status !== 200) throw new Error(`${c.label}: ${res.status} ${res.body.slice(0, 500)}`);
            s = performance.now();
            const { rows } = await db.pool.query(c.baseline.text, c.baseline.values);
            const r = performance.now() - s;
            if (i === 0) {
              const [mine, theirs] = c.same(JSON.parse(res.body), rows);
              if (JSON.stringify(mine) !== JSON.stringify(theirs))
                throw new Error(
                  `${c.label}: the answer differs from the raw GROUP BY: ${JSON.stringify(mine).slice(0, 600)} vs ${JSON.stringify(theirs).slice(0, 600)}`,
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
          const p50 = percentile(http, 50);
          const p95 = percentile(http, 95);
          figures.push({
            metric: `${c.label} p50`,
            value: round(p50, 1),
            unit: 'ms',
            baseline: { label: 'raw GROUP BY p50', value: round(percentile(raw, 50), 1), unit: 'ms' },
            ratio: round(percentile(raw, 50) / p50, 1),
          });
          figures.push({
            metric: `${c.label} p95`,
            value: round(p95, 1),
            unit: 'ms',
            baseline: { label: 'raw GROUP BY p95', value: round(percentile(raw, 95), 1), unit: 'ms' },
            ratio: round(percentile(raw, 95) / p95, 1),
            goal: `p95 ≤ ${GOAL_MS} ms, ≥ 10× faster than raw`,
            met: p95 <= GOAL_MS && percentile(raw, 95) / p95 >= 10,
          });
          ctx.log(
            `${c.label}: p50 ${round(p50, 1)} ms, p95 ${round(p95, 1)} ms; raw p50 ${round(percentile(raw, 50), 1)} ms`,
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
