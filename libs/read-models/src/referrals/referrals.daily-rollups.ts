import { sql, type RawBuilder, type Transaction } from 'kysely';
import { column, defineTable, type KyselyTables } from '../shared/table.ts';
import type { VisitKind } from './referrals.tables.ts';

const dailyCounts = {
  referral_count: column.int(),
  admitted_count: column.int(),
  operated_count: column.int(),
  reverse_referral_count: column.int(),
};

/**
 * The analysis figures per institution, own department, referral department, visit and day: what a
 * period's days outside whole segments (a partial month or week at either end, such as 年度 to date)
 * are summed from instead of the facts and their stays. The same rows as `referral_period_rollups`,
 * keyed by the day instead of the segment; also what the per-tenant day rows are kept from.
 */
const referralDailyRollupsTable = defineTable({
  name: 'referral_daily_rollups',
  columns: {
    tenant_id: column.uuid(),
    medical_institution_id: column.uuid(),
    own_department_id: column.uuid(),
    referral_department: column.text(),
    visit: column.text<VisitKind>(),
    day: column.date(),
    ...dailyCounts,
  },
  // The institution and day first: a batch replaces the rows of whole institution-months.
  primaryKey: ['tenant_id', 'medical_institution_id', 'day', 'own_department_id', 'referral_department', 'visit'],
  // Covering: the days of a period are read by index only (the rows of a day lie on as many pages).
  indexes: [
    [
      'tenant_id',
      'day',
      'medical_institution_id',
      'own_department_id',
      'referral_department',
      'visit',
      ...Object.keys(dailyCounts),
    ],
  ],
});

/** The day rows summed over institutions (calls that ask nothing of the institution): a few hundred rows a day. */
const referralTenantDailyRollupsTable = defineTable({
  name: 'referral_tenant_daily_rollups',
  columns: {
    tenant_id: column.uuid(),
    own_department_id: column.uuid(),
    referral_department: column.text(),
    visit: column.text<VisitKind>(),
    day: column.date(),
    ...dailyCounts,
  },
  primaryKey: ['tenant_id', 'day', 'own_department_id', 'referral_department', 'visit'],
});

/**
 * The day rows summed over own department, referral department and visit, per institution and day:
 * what rankings read for a period's days outside whole months (issue 13 §3: a big referrer has dozens
 * of day rows a month above, one here). Covering both ways: by institution (a ranking's candidates,
 * probed one by one) and by day (every institution's days of a period).
 */
const referralInstitutionDailyRollupsTable = defineTable({
  name: 'referral_institution_daily_rollups',
  columns: {
    tenant_id: column.uuid(),
    medical_institution_id: column.uuid(),
    day: column.date(),
    ...dailyCounts,
  },
  primaryKey: ['tenant_id', 'medical_institution_id', 'day'],
  indexes: [
    ['tenant_id', 'medical_institution_id', 'day', ...Object.keys(dailyCounts)],
    ['tenant_id', 'day', 'medical_institution_id', ...Object.keys(dailyCounts)],
  ],
});

/** The physical tables these statements read and write (a projection build's names). */
type DailyTables = Readonly<
  Record<
    | 'referrals'
    | 'reverse_referrals'
    | 'hospital_admissions'
    | 'referral_daily_rollups'
    | 'referral_tenant_daily_rollups'
    | 'referral_institution_daily_rollups',
    string
  >
>;
type MdcTables = Readonly<Record<'referral_case_rollups' | 'referral_institution_mdc_rollups', string>>;

const nilDepartment = '00000000-0000-0000-0000-000000000000';
const counts = ['referral_count', 'admitted_count', 'operated_count', 'reverse_referral_count'];
const tenantKey = 'tenant_id, own_department_id, referral_department, visit, day';
const dailyColumns = sql.raw(
  `tenant_id, medical_institution_id, own_department_id, referral_department, visit, day, ${counts.join(', ')}`,
);

/** Which facts a statement reads: `alias.column` is the fact's date. */
type Scope = (alias: string, column: string) => RawBuilder<unknown>;

/**
 * The day rows of the facts in scope, by the projection's rules: a referral is admitted when a stay
 * followed it (`hospital_admissions.referral_id`, kept by the join before this runs) and operated when
 * one of those stays has a K-code; a reverse referral counts under referral department '' and visit
 * 'unknown'. Facts without an institution are not analysed.
 */
function dailyRowsOf(t: DailyTables, scope: Scope) {
  return sql`
    SELECT tenant_id, medical_institution_id, own_department_id, referral_department, visit, day,
           sum(referrals)::int, sum(admitted)::int, sum(operated)::int, sum(reverse)::int
      FROM (
        SELECT r.tenant_id, r.medical_institution_id, coalesce(r.own_department_id, ${nilDepartment}::uuid) AS own_department_id,
               coalesce(r.from_department, '') AS referral_department,
               CASE WHEN r.first_visit THEN 'first' WHEN NOT r.first_visit THEN 'return' ELSE 'unknown' END AS visit,
               r.referral_date AS day, 1 AS referrals,
               (EXISTS (SELECT 1 FROM ${sql.table(t.hospital_admissions)} a WHERE a.tenant_id = r.tenant_id AND a.referral_id = r.id))::int AS admitted,
               (EXISTS (SELECT 1 FROM ${sql.table(t.hospital_admissions)} a
                         WHERE a.tenant_id = r.tenant_id AND a.referral_id = r.id AND a.kcode IS NOT NULL))::int AS operated,
               0 AS reverse
          FROM ${sql.table(t.referrals)} r ${scope('r', 'referral_date')}
        UNION ALL
        SELECT v.tenant_id, v.medical_institution_id, coalesce(v.own_department_id, ${nilDepartment}::uuid), '', 'unknown',
               v.reverse_referral_date, 0, 0, 0, 1
          FROM ${sql.table(t.reverse_referrals)} v ${scope('v', 'reverse_referral_date')}) f
     GROUP BY tenant_id, medical_institution_id, own_department_id, referral_department, visit, day`;
}

const sums = (sign: '' | '-') => sql.raw(counts.map((c) => `${sign}sum(${c})::int`).join(', '));
const addCounts = sql.raw(`DO UPDATE SET ${counts.map((c) => `${c} = cur.${c} + excluded.${c}`).join(', ')}`);

/**
 * Brings the day rows of whole institution-months up to date after a batch changed their facts (the
 * referrals projection calls it with the institution-months it recomputes): the institution's rows of
 * each month are deleted and summed again from the facts, and the difference between the rows
 * deleted and those written is added to the per-tenant day rows, whose rows left at zero are removed.
 * No statement reads more than the institution-months touched, so an import stays linear in its size.
 */
async function rollupDailyRows(
  trx: Transaction<unknown>,
  t: DailyTables,
  months: readonly { tenant_id: string; medical_institution_id: string; month: string }[],
): Promise<void> {
  if (months.length === 0) return;
  const g = sql`unnest(${sql.val(months.map((m) => m.tenant_id))}::uuid[], ${sql.val(months.map((m) => m.medical_institution_id))}::uuid[],
    ${sql.val(months.map((m) => m.month))}::date[]) AS g(tenant_id, medical_institution_id, month)`;
  const inMonths: Scope = (alias, column) =>
    sql`JOIN ${g} ON ${sql.ref(`${alias}.tenant_id`)} = g.tenant_id AND ${sql.ref(`${alias}.medical_institution_id`)} = g.medical_institution_id
        AND ${sql.ref(`${alias}.${column}`)} >= g.month AND ${sql.ref(`${alias}.${column}`)} < (g.month + interval '1 month')::date`;
  const intoTenant = (rows: string, sign: '' | '-') => sql`
    INSERT INTO ${sql.table(t.referral_tenant_daily_rollups)} AS cur (${sql.raw(tenantKey)}, ${sql.raw(counts.join(', '))})
    SELECT ${sql.raw(tenantKey)}, ${sums(sign)} FROM ${sql.raw(rows)} GROUP BY ${sql.raw(tenantKey)}
    ON CONFLICT (${sql.raw(tenantKey)}) ${addCounts}`;
  await sql`
    WITH old AS (
      DELETE FROM ${sql.table(t.referral_daily_rollups)} d USING ${g}
       WHERE d.tenant_id = g.tenant_id AND d.medical_institution_id = g.medical_institution_id
         AND d.day >= g.month AND d.day < (g.month + interval '1 month')::date
      RETURNING d.*)
    ${intoTenant('old', '-')}`.execute(trx);
  await sql`
    WITH new AS (
      INSERT INTO ${sql.table(t.referral_daily_rollups)} (${dailyColumns}) ${dailyRowsOf(t, inMonths)}
      RETURNING *)
    ${intoTenant('new', '')}`.execute(trx);
  await rollupInstitutionDays(
    trx,
    t,
    sql`JOIN ${g} ON d.tenant_id = g.tenant_id AND d.medical_institution_id = g.medical_institution_id
        AND d.day >= g.month AND d.day < (g.month + interval '1 month')::date`,
  );
  const tenantMonths = [...new Map(months.map((m) => [`${m.tenant_id}|${m.month}`, m])).values()];
  await sql`
    DELETE FROM ${sql.table(t.referral_tenant_daily_rollups)} p
     USING unnest(${sql.val(tenantMonths.map((m) => m.tenant_id))}::uuid[], ${sql.val(tenantMonths.map((m) => m.month))}::date[]) AS g(tenant_id, month)
     WHERE p.tenant_id = g.tenant_id AND p.day >= g.month AND p.day < (g.month + interval '1 month')::date
       AND ${sql.raw(counts.map((c) => `p.${c} = 0`).join(' AND '))}`.execute(trx);
}

/**
 * The institution-day rows of the day rows that `scope` (a join or condition on the day rows `d`)
 * keeps, replaced by their sums: the one way they are computed, in a batch and in a bulk build alike
 * (the day rows must be current there).
 */
async function rollupInstitutionDays(trx: Transaction<unknown>, t: DailyTables, scope: RawBuilder<unknown>) {
  await sql`
    DELETE FROM ${sql.table(t.referral_institution_daily_rollups)} x
     WHERE (x.tenant_id, x.medical_institution_id, x.day) IN (
       SELECT d.tenant_id, d.medical_institution_id, d.day FROM ${sql.table(t.referral_institution_daily_rollups)} d ${scope})`.execute(
    trx,
  );
  await sql`
    INSERT INTO ${sql.table(t.referral_institution_daily_rollups)} (tenant_id, medical_institution_id, day, ${sql.raw(counts.join(', '))})
    SELECT d.tenant_id, d.medical_institution_id, d.day, ${sql.raw(counts.map((c) => `sum(d.${c})::int`).join(', '))}
      FROM ${sql.table(t.referral_daily_rollups)} d ${scope}
     GROUP BY 1, 2, 3`.execute(trx);
}

/**
 * The day rows of a tenant's facts dated in [from, to), built set-wise (one statement per table):
 * the bulk build beside `rebuildTenantAnalysisRollups`, for facts written without events.
 */
async function rebuildTenantDailyRollups(
  trx: Transaction<unknown>,
  t: DailyTables,
  tenantId: string,
  range: { from: string; to: string },
): Promise<void> {
  const inRange = sql`tenant_id = ${tenantId} AND day >= ${range.from}::date AND day < ${range.to}::date`;
  const scope: Scope = (alias, column) =>
    sql`WHERE ${sql.ref(`${alias}.tenant_id`)} = ${tenantId} AND ${sql.ref(`${alias}.medical_institution_id`)} IS NOT NULL
          AND ${sql.ref(`${alias}.${column}`)} >= ${range.from}::date AND ${sql.ref(`${alias}.${column}`)} < ${range.to}::date`;
  await sql`DELETE FROM ${sql.table(t.referral_daily_rollups)} WHERE ${inRange}`.execute(trx);
  await sql`INSERT INTO ${sql.table(t.referral_daily_rollups)} (${dailyColumns}) ${dailyRowsOf(t, scope)}`.execute(trx);
  await rebuildTenantInstitutionDailyRollups(trx, t, tenantId, range);
  await sql`DELETE FROM ${sql.table(t.referral_tenant_daily_rollups)} WHERE ${inRange}`.execute(trx);
  await sql`
    INSERT INTO ${sql.table(t.referral_tenant_daily_rollups)} (${sql.raw(tenantKey)}, ${sql.raw(counts.join(', '))})
    SELECT ${sql.raw(tenantKey)}, ${sums('')} FROM ${sql.table(t.referral_daily_rollups)} WHERE ${inRange}
     GROUP BY ${sql.raw(tenantKey)}`.execute(trx);
}

/** The institution-day rows of a tenant's days in [from, to), from its day rows (current there). */
export async function rebuildTenantInstitutionDailyRollups(
  trx: Transaction<unknown>,
  t: DailyTables,
  tenantId: string,
  range: { from: string; to: string },
): Promise<void> {
  await rollupInstitutionDays(
    trx,
    t,
    sql`WHERE d.tenant_id = ${tenantId} AND d.day >= ${range.from}::date AND d.day < ${range.to}::date`,
  );
}

/** The spans of `referral_institution_mdc_rollups`, each wholly inside the next (a 年度 starts in April). */
type MdcSpan = 'month' | 'quarter' | 'fiscal_year';

/**
 * The case mix per institution and MDC without other dimensions, per month, quarter and 年度: what
 * the aggregation reads when it groups or filters by the institution (or its facility type and area)
 * and MDC and nothing of the referral itself over whole months. A 年度 is a few rows per institution
 * instead of one per own department, referral department, visit, K-code and month. Kept from
 * `referral_case_rollups` for every institution-month a batch touches.
 */
const referralInstitutionMdcRollupsTable = defineTable({
  name: 'referral_institution_mdc_rollups',
  columns: {
    tenant_id: column.uuid(),
    medical_institution_id: column.uuid(),
    mdc: column.text(),
    span: column.text<MdcSpan>(),
    period_start: column.date(),
    referral_count: column.int(),
    admitted_count: column.int(),
    operated_count: column.int(),
  },
  primaryKey: ['tenant_id', 'medical_institution_id', 'span', 'period_start', 'mdc'],
  // Covering: a 年度's rows are read by index only, not from a page per institution.
  indexes: [
    [
      'tenant_id',
      'span',
      'period_start',
      'medical_institution_id',
      'mdc',
      'referral_count',
      'admitted_count',
      'operated_count',
    ],
  ],
});

const caseCounts = ['referral_count', 'admitted_count', 'operated_count'];
const mdcKey = 'tenant_id, medical_institution_id, mdc, span, period_start';
const addCaseCounts = sql.raw(`DO UPDATE SET ${caseCounts.map((c) => `${c} = cur.${c} + excluded.${c}`).join(', ')}`);
/** The quarter (April–June …) and 年度 holding the month `m`. */
const longerSpans = (m: RawBuilder<unknown>) => sql`(VALUES
  ('quarter', date_trunc('quarter', ${m})::date),
  ('fiscal_year', (date_trunc('year', ${m} - interval '3 months') + interval '3 months')::date)) s(span, period_start)`;

/**
 * Brings the MDC rows of whole institution-months up to date after the case-mix rollups of those
 * months were summed again (call it after the referrals projection's own rollups): the month rows are
 * deleted and summed again from the case-mix rows, and the difference is added to the quarter and
 * 年度 rows, whose rows left at zero are removed.
 */
async function rollupInstitutionMdcRows(
  trx: Transaction<unknown>,
  t: MdcTables,
  months: readonly { tenant_id: string; medical_institution_id: string; month: string }[],
): Promise<void> {
  if (months.length === 0) return;
  const g = sql`unnest(${sql.val(months.map((m) => m.tenant_id))}::uuid[], ${sql.val(months.map((m) => m.medical_institution_id))}::uuid[],
    ${sql.val(months.map((m) => m.month))}::date[]) AS g(tenant_id, medical_institution_id, month)`;
  const intoLonger = (rows: string, sign: '' | '-') => sql`
    INSERT INTO ${sql.table(t.referral_institution_mdc_rollups)} AS cur (${sql.raw(mdcKey)}, ${sql.raw(caseCounts.join(', '))})
    SELECT x.tenant_id, x.medical_institution_id, x.mdc, s.span, s.period_start,
           ${sql.raw(caseCounts.map((c) => `${sign}sum(x.${c})::int`).join(', '))}
      FROM ${sql.raw(rows)} x CROSS JOIN LATERAL ${longerSpans(sql`x.period_start`)}
     GROUP BY 1, 2, 3, 4, 5
    ON CONFLICT (${sql.raw(mdcKey)}) ${addCaseCounts}`;
  await sql`
    WITH old AS (
      DELETE FROM ${sql.table(t.referral_institution_mdc_rollups)} i USING ${g}
       WHERE i.tenant_id = g.tenant_id AND i.medical_institution_id = g.medical_institution_id
         AND i.span = 'month' AND i.period_start = g.month
      RETURNING i.*)
    ${intoLonger('old', '-')}`.execute(trx);
  await sql`
    WITH new AS (
      INSERT INTO ${sql.table(t.referral_institution_mdc_rollups)} (${sql.raw(mdcKey)}, ${sql.raw(caseCounts.join(', '))})
      SELECT c.tenant_id, c.medical_institution_id, c.mdc, 'month', c.month, ${sql.raw(caseCounts.map((x) => `sum(c.${x})::int`).join(', '))}
        FROM ${sql.table(t.referral_case_rollups)} c
        JOIN ${g} ON c.tenant_id = g.tenant_id AND c.medical_institution_id = g.medical_institution_id AND c.month = g.month
       GROUP BY 1, 2, 3, 5
      RETURNING *)
    ${intoLonger('new', '')}`.execute(trx);
  await sql`
    DELETE FROM ${sql.table(t.referral_institution_mdc_rollups)} i USING ${g}
     WHERE i.tenant_id = g.tenant_id AND i.medical_institution_id = g.medical_institution_id
       AND i.period_start IN (g.month, date_trunc('quarter', g.month)::date,
                              (date_trunc('year', g.month - interval '3 months') + interval '3 months')::date)
       AND ${sql.raw(caseCounts.map((c) => `i.${c} = 0`).join(' AND '))}`.execute(trx);
}

/**
 * The MDC rows of a tenant over the 年度 that [from, to) touches, set-wise from the case-mix rollups
 * (which must be current there): widened to whole 年度 so a quarter or 年度 row is never summed from
 * part of its months.
 */
export async function rebuildTenantInstitutionMdcRollups(
  trx: Transaction<unknown>,
  t: MdcTables,
  tenantId: string,
  range: { from: string; to: string },
): Promise<void> {
  const fiscalYearOf = (iso: string) => Number(iso.slice(0, 4)) - (Number(iso.slice(5, 7)) < 4 ? 1 : 0);
  const lastDay = new Date(Date.parse(`${range.to}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
  const from = `${fiscalYearOf(range.from)}-04-01`;
  const to = `${fiscalYearOf(lastDay) + 1}-04-01`;
  await sql`
    DELETE FROM ${sql.table(t.referral_institution_mdc_rollups)}
     WHERE tenant_id = ${tenantId} AND period_start >= ${from}::date AND period_start < ${to}::date`.execute(trx);
  await sql`
    INSERT INTO ${sql.table(t.referral_institution_mdc_rollups)} (${sql.raw(mdcKey)}, ${sql.raw(caseCounts.join(', '))})
    SELECT c.tenant_id, c.medical_institution_id, c.mdc, s.span, s.period_start,
           ${sql.raw(caseCounts.map((x) => `sum(c.${x})::int`).join(', '))}
      FROM ${sql.table(t.referral_case_rollups)} c
      CROSS JOIN LATERAL (SELECT 'month' AS span, c.month AS period_start UNION ALL SELECT * FROM ${longerSpans(sql`c.month`)}) s
     WHERE c.tenant_id = ${tenantId} AND c.month >= ${from}::date AND c.month < ${to}::date
     GROUP BY 1, 2, 3, 4, 5`.execute(trx);
}

/** The tables of this file, created with the referrals projection's. */
export const dayAndMdcRollupTables = [
  referralDailyRollupsTable,
  referralTenantDailyRollupsTable,
  referralInstitutionDailyRollupsTable,
  referralInstitutionMdcRollupsTable,
] as const;

export type ReferralDayAndMdcRollupsTables = KyselyTables<(typeof dayAndMdcRollupTables)[number]>;

/**
 * The day and MDC rows of the institution-months whose period and case-mix rollups a batch has just
 * summed again (the referrals projection calls it last in each batch's recompute).
 */
export async function rollupDaysAndMdc(
  trx: Transaction<unknown>,
  t: DailyTables & MdcTables,
  months: readonly { tenant_id: string; medical_institution_id: string; month: string }[],
): Promise<void> {
  await rollupDailyRows(trx, t, months);
  await rollupInstitutionMdcRows(trx, t, months);
}

/** The bulk build of this file's rollups over [from, to), after `rebuildTenantAnalysisRollups` over the same range. */
export async function rebuildTenantDayAndMdcRollups(
  trx: Transaction<unknown>,
  t: DailyTables & MdcTables,
  tenantId: string,
  range: { from: string; to: string },
): Promise<void> {
  await rebuildTenantDailyRollups(trx, t, tenantId, range);
  await rebuildTenantInstitutionMdcRollups(trx, t, tenantId, range);
}
