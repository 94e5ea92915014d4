import { sql, type RawBuilder, type Transaction } from 'kysely';
import { column, defineTable, type KyselyTables } from '../shared/table.ts';
import { masterRuns, noCity, noFacilityType, noPrefecture } from '../shared/master-attributes.ts';
import type { VisitKind } from './referrals.tables.ts';

export { noCity, noFacilityType, noPrefecture };

const chartCounts = {
  referral_count: column.int(),
  admitted_count: column.int(),
  operated_count: column.int(),
  reverse_referral_count: column.int(),
};
/**
 * The key and the counts: a chart's rows are read by index only (the bulk build and the deltas leave about
 * one heap page per row, which a period's read would otherwise visit one by one).
 */
const coveringChartIndex = <A extends string, P extends string>(attribute: A, period: P) =>
  [
    'tenant_id',
    attribute,
    period,
    'own_department_id',
    'referral_department',
    'visit',
    'referral_count',
    'admitted_count',
    'operated_count',
    'reverse_referral_count',
  ] as const;
const chartDimensions = {
  own_department_id: column.uuid(),
  referral_department: column.text(),
  visit: column.text<VisitKind>(),
  month: column.date(),
};

/**
 * The period rows summed per month and the institution's facility type as the institution master had it
 * when summed: a chart filtered by facility type (with own department, referral department or visit)
 * reads a few hundred rows a 年度 here instead of every institution's segment rows joined to the master.
 * Valid only while `referral_attribute_bases` says the master has not been synced since.
 */
const referralFacilityTypeRollupsTable = defineTable({
  name: 'referral_facility_type_rollups',
  columns: {
    tenant_id: column.uuid(),
    /** The master's `facility_type_id`, `noFacilityType` where it has none (or no master row). */
    facility_type_id: column.int(),
    ...chartDimensions,
    ...chartCounts,
  },
  primaryKey: ['tenant_id', 'facility_type_id', 'month', 'own_department_id', 'referral_department', 'visit'],
  indexes: [coveringChartIndex('facility_type_id', 'month')],
});

/** The same keyed by the institution's prefecture code (`noPrefecture` where it has none). */
const referralPrefectureRollupsTable = defineTable({
  name: 'referral_prefecture_rollups',
  columns: {
    tenant_id: column.uuid(),
    prefecture_code: column.int(),
    ...chartDimensions,
    ...chartCounts,
  },
  primaryKey: ['tenant_id', 'prefecture_code', 'month', 'own_department_id', 'referral_department', 'visit'],
  indexes: [coveringChartIndex('prefecture_code', 'month')],
});

/**
 * The period rows summed per month by the institution's facility type, prefecture and municipality
 * together (the master's `city`, compared as the filter compares it): a chart filtered by municipality,
 * or by facility type and prefecture together, reads the rows of those keys (a few hundred a month for a
 * municipality) instead of every institution's segment rows joined to the master. Cities repeat across
 * prefectures, so the key holds both; a filter by city alone sums every prefecture's city of that name,
 * as the master join does. One row per (facility type × municipality) actually used and the dimensions,
 * far fewer than per institution; the single-attribute tables above stay, being ten to a hundred times
 * smaller for a filter by facility type or prefecture alone.
 */
const referralAreaRollupsTable = defineTable({
  name: 'referral_area_rollups',
  columns: {
    tenant_id: column.uuid(),
    facility_type_id: column.int(),
    prefecture_code: column.int(),
    /** The master's `city` ('' where it has none), `noCity` for an institution not in the master. */
    city: column.text(),
    ...chartDimensions,
    ...chartCounts,
  },
  primaryKey: [
    'tenant_id',
    'facility_type_id',
    'prefecture_code',
    'city',
    'month',
    'own_department_id',
    'referral_department',
    'visit',
  ],
  // Covering, one per way in: facility type and prefecture, then the period; the municipality, then the period.
  indexes: [
    [
      'tenant_id',
      'facility_type_id',
      'prefecture_code',
      'month',
      'city',
      'own_department_id',
      'referral_department',
      'visit',
      ...Object.keys(chartCounts),
    ],
    [
      'tenant_id',
      'city',
      'month',
      'prefecture_code',
      'facility_type_id',
      'own_department_id',
      'referral_department',
      'visit',
      ...Object.keys(chartCounts),
    ],
  ],
});

/**
 * The day rows (`referral_daily_rollups`) summed the same two ways, keyed by the day: what a chart filtered
 * by facility type or prefecture reads for the days of a partial month at its period's ends (年度 to date),
 * instead of every institution's segment and day rows of those days joined to the master.
 */
const referralFacilityTypeDailyRollupsTable = defineTable({
  name: 'referral_facility_type_daily_rollups',
  columns: {
    tenant_id: column.uuid(),
    facility_type_id: column.int(),
    own_department_id: column.uuid(),
    referral_department: column.text(),
    visit: column.text<VisitKind>(),
    day: column.date(),
    ...chartCounts,
  },
  primaryKey: ['tenant_id', 'facility_type_id', 'day', 'own_department_id', 'referral_department', 'visit'],
  indexes: [coveringChartIndex('facility_type_id', 'day')],
});
const referralPrefectureDailyRollupsTable = defineTable({
  name: 'referral_prefecture_daily_rollups',
  columns: {
    tenant_id: column.uuid(),
    prefecture_code: column.int(),
    own_department_id: column.uuid(),
    referral_department: column.text(),
    visit: column.text<VisitKind>(),
    day: column.date(),
    ...chartCounts,
  },
  primaryKey: ['tenant_id', 'prefecture_code', 'day', 'own_department_id', 'referral_department', 'visit'],
  indexes: [coveringChartIndex('prefecture_code', 'day')],
});

/**
 * The day rows summed by facility type, prefecture and city together, keyed by own department, referral
 * department and visit as the per-institution day rows are: the days of a partial month at a period's
 * ends for any chart filtered by area (city, or facility type and prefecture), with or without those
 * dimensions. Without them (v12) an area filter that asked own department, referral department or visit
 * read the day rows of every institution that passed, one probe each (~1,900 probes, ~40 ms, for a
 * 年度-to-date chart by facility type + prefecture at 5,000,000 referrals: 3.7× its raw GROUP BY). Keyed
 * by them the table holds about as many rows as there are distinct referral kinds per area and day;
 * a partial month reads only the area's rows of its days, by index only.
 */
const referralAreaDailyRollupsTable = defineTable({
  name: 'referral_area_daily_rollups',
  columns: {
    tenant_id: column.uuid(),
    facility_type_id: column.int(),
    prefecture_code: column.int(),
    city: column.text(),
    own_department_id: column.uuid(),
    referral_department: column.text(),
    visit: column.text<VisitKind>(),
    day: column.date(),
    ...chartCounts,
  },
  primaryKey: [
    'tenant_id',
    'facility_type_id',
    'prefecture_code',
    'city',
    'day',
    'own_department_id',
    'referral_department',
    'visit',
  ],
  // Covering, the same two ways in as the month rows.
  indexes: [
    [
      'tenant_id',
      'facility_type_id',
      'prefecture_code',
      'day',
      'city',
      'own_department_id',
      'referral_department',
      'visit',
      ...Object.keys(chartCounts),
    ],
    [
      'tenant_id',
      'city',
      'day',
      'prefecture_code',
      'facility_type_id',
      'own_department_id',
      'referral_department',
      'visit',
      ...Object.keys(chartCounts),
    ],
  ],
});

/** The spans of the attribute MDC rows, each wholly inside the next (a 年度 starts in April). */
type Span = 'month' | 'quarter' | 'fiscal_year';

const mdcColumns = {
  tenant_id: column.uuid(),
  span: column.text<Span>(),
  period_start: column.date(),
  facility_type_id: column.int(),
  prefecture_code: column.int(),
  /** The master's `prefecture` ('' where it has none): one per code in practice, kept for the answer. */
  prefecture: column.text(),
};
const mdcCounts = {
  mdc: column.text(),
  referral_count: column.int(),
  admitted_count: column.int(),
  operated_count: column.int(),
};

/**
 * The per-institution MDC rows summed by the institution's facility type and prefecture (code and the
 * name the master gives it, which the aggregation shows), per month, quarter and 年度: the aggregation
 * grouped by facility type, prefecture and MDC reads a few thousand rows a 年度 here instead of one per
 * institution and MDC joined to the master.
 */
const referralAttributeMdcRollupsTable = defineTable({
  name: 'referral_attribute_mdc_rollups',
  columns: { ...mdcColumns, ...mdcCounts },
  primaryKey: ['tenant_id', 'span', 'period_start', 'facility_type_id', 'prefecture_code', 'prefecture', 'mdc'],
  // Covering: a 年度's rows are read by index only (the bulk build leaves one heap page per row).
  indexes: [
    [
      'tenant_id',
      'span',
      'period_start',
      'facility_type_id',
      'prefecture_code',
      'prefecture',
      'mdc',
      'referral_count',
      'admitted_count',
      'operated_count',
    ],
  ],
});

/**
 * The same keyed by the city too: the aggregation grouped by city or filtered by it (with facility type,
 * prefecture and MDC). Apart from the rows above because a municipality splits them many ways (about
 * 1,900 municipalities against 47 prefectures), which the aggregations without city need not read.
 */
const referralAreaMdcRollupsTable = defineTable({
  name: 'referral_area_mdc_rollups',
  columns: {
    ...mdcColumns,
    /** As `referral_area_rollups.city`. */
    city: column.text(),
    ...mdcCounts,
  },
  primaryKey: ['tenant_id', 'span', 'period_start', 'facility_type_id', 'prefecture_code', 'prefecture', 'city', 'mdc'],
  indexes: [
    [
      'tenant_id',
      'span',
      'period_start',
      'facility_type_id',
      'prefecture_code',
      'prefecture',
      'city',
      'mdc',
      'referral_count',
      'admitted_count',
      'operated_count',
    ],
  ],
});

/**
 * Per tenant, the number of institution-master sync runs (`ref.sync_runs`) there were when its attribute
 * rows were summed; null while a sync was running then (or there was no master). A sync writes its run
 * row before any master row, so a count that has moved on says the rows may be stale: readers then take
 * the per-institution rows joined to the master, and the tenant's next batch sums its rows again.
 */
const referralAttributeBasesTable = defineTable({
  name: 'referral_attribute_bases',
  columns: {
    tenant_id: column.uuid(),
    master_runs: column.int().nullable(),
  },
  primaryKey: ['tenant_id'],
});

/** The tables of this file, created with the referrals projection's. */
export const attributeRollupTables = [
  referralFacilityTypeRollupsTable,
  referralPrefectureRollupsTable,
  referralAreaRollupsTable,
  referralFacilityTypeDailyRollupsTable,
  referralPrefectureDailyRollupsTable,
  referralAreaDailyRollupsTable,
  referralAttributeMdcRollupsTable,
  referralAreaMdcRollupsTable,
  referralAttributeBasesTable,
] as const;

export type ReferralAttributeRollupsTables = KyselyTables<(typeof attributeRollupTables)[number]>;

/** The physical tables these statements read and write (a projection build's names). */
type Tables = Readonly<
  Record<
    | 'referral_period_rollups'
    | 'referral_daily_rollups'
    | 'referral_institution_mdc_rollups'
    | 'referral_facility_type_rollups'
    | 'referral_prefecture_rollups'
    | 'referral_area_rollups'
    | 'referral_facility_type_daily_rollups'
    | 'referral_prefecture_daily_rollups'
    | 'referral_area_daily_rollups'
    | 'referral_attribute_mdc_rollups'
    | 'referral_area_mdc_rollups'
    | 'referral_attribute_bases',
    string
  >
>;

interface InstitutionMonth {
  tenant_id: string;
  medical_institution_id: string;
  month: string;
}

const counts4 = ['referral_count', 'admitted_count', 'operated_count', 'reverse_referral_count'] as const;
const counts3 = ['referral_count', 'admitted_count', 'operated_count'] as const;

interface ChartSum {
  tenant_id: string;
  facility_type_id: number;
  prefecture_code: number;
  city: string;
  own_department_id: string;
  referral_department: string;
  visit: string;
  month: string;
  referral_count: number;
  admitted_count: number;
  operated_count: number;
  reverse_referral_count: number;
}
interface MdcSum {
  tenant_id: string;
  facility_type_id: number;
  prefecture_code: number;
  prefecture: string;
  city: string;
  mdc: string;
  month: string;
  referral_count: number;
  admitted_count: number;
  operated_count: number;
}

const monthsOf = (months: readonly InstitutionMonth[]) =>
  sql`unnest(${sql.val(months.map((m) => m.tenant_id))}::uuid[], ${sql.val(months.map((m) => m.medical_institution_id))}::uuid[],
    ${sql.val(months.map((m) => m.month))}::date[]) AS g(tenant_id, medical_institution_id, month)`;
const facilityTypeOf = sql`coalesce(m.facility_type_id, ${noFacilityType})`;
const prefectureCodeOf = sql`coalesce(m.prefecture_code::int, ${noPrefecture})`;
const cityOf = sql`coalesce(m.city, ${noCity})`;

/** What the given institution-months contribute now, by attribute key, from their period and MDC month rows. */
async function sumsOf(trx: Transaction<unknown>, t: Tables, months: readonly InstitutionMonth[]): Promise<Sums> {
  if (months.length === 0) return { chart: [], days: [], mdc: [] };
  const g = monthsOf(months);
  const { rows: chart } = await sql<ChartSum>`
    SELECT p.tenant_id, ${facilityTypeOf} AS facility_type_id, ${prefectureCodeOf} AS prefecture_code, ${cityOf} AS city,
           p.own_department_id, p.referral_department, p.visit, to_char(g.month, 'YYYY-MM-DD') AS month,
           ${sql.raw(counts4.map((c) => `sum(p.${c})::int AS ${c}`).join(', '))}
      FROM ${g}
      JOIN ${sql.table(t.referral_period_rollups)} p
        ON p.tenant_id = g.tenant_id AND p.medical_institution_id = g.medical_institution_id
       AND p.segment >= g.month AND p.segment < (g.month + interval '1 month')::date
      LEFT JOIN ref.medical_institutions m ON m.id = p.medical_institution_id
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8`.execute(trx);
  // The day rows carry their day in `month`'s place (ChartSum's period column).
  const { rows: days } = await sql<ChartSum>`
    SELECT d.tenant_id, ${facilityTypeOf} AS facility_type_id, ${prefectureCodeOf} AS prefecture_code, ${cityOf} AS city,
           d.own_department_id, d.referral_department, d.visit, to_char(d.day, 'YYYY-MM-DD') AS month,
           ${sql.raw(counts4.map((c) => `sum(d.${c})::int AS ${c}`).join(', '))}
      FROM ${g}
      JOIN ${sql.table(t.referral_daily_rollups)} d
        ON d.tenant_id = g.tenant_id AND d.medical_institution_id = g.medical_institution_id
       AND d.day >= g.month AND d.day < (g.month + interval '1 month')::date
      LEFT JOIN ref.medical_institutions m ON m.id = d.medical_institution_id
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8`.execute(trx);
  const { rows: mdc } = await sql<MdcSum>`
    SELECT i.tenant_id, ${facilityTypeOf} AS facility_type_id, ${prefectureCodeOf} AS prefecture_code,
           coalesce(m.prefecture, '') AS prefecture, ${cityOf} AS city, i.mdc, to_char(g.month, 'YYYY-MM-DD') AS month,
           ${sql.raw(counts3.map((c) => `sum(i.${c})::int AS ${c}`).join(', '))}
      FROM ${g}
      JOIN ${sql.table(t.referral_institution_mdc_rollups)} i
        ON i.tenant_id = g.tenant_id AND i.medical_institution_id = g.medical_institution_id
       AND i.span = 'month' AND i.period_start = g.month
      LEFT JOIN ref.medical_institutions m ON m.id = i.medical_institution_id
     GROUP BY 1, 2, 3, 4, 5, 6, 7`.execute(trx);
  return { chart, days, mdc };
}
interface Sums {
  chart: ChartSum[];
  days: ChartSum[];
  mdc: MdcSum[];
}

/** What a batch holds between the two halves: the master it summed against and the contributions before. */
interface AttributeBatch {
  runs: number | null;
  /** Tenants whose rows were summed against this master: they take deltas. */
  current: Set<string>;
  before: Sums;
}

/**
 * Before the batch rewrites the institution-months' rollups: the master's run count (read before any
 * master row), which tenants' attribute rows were summed against it, and what those tenants' touched
 * institution-months contribute to them now.
 */
export async function attributesBefore(
  trx: Transaction<unknown>,
  t: Tables,
  months: readonly InstitutionMonth[],
): Promise<AttributeBatch> {
  const runs = await masterRuns(trx);
  const tenants = [...new Set(months.map((m) => m.tenant_id))];
  const { rows: bases } = await sql<{ tenant_id: string; master_runs: number | null }>`
    SELECT tenant_id, master_runs FROM ${sql.table(t.referral_attribute_bases)}
     WHERE tenant_id = ANY(${sql.val(tenants)}::uuid[])`.execute(trx);
  const current = new Set(bases.filter((b) => runs !== null && b.master_runs === runs).map((b) => b.tenant_id));
  return {
    runs,
    current,
    before: await sumsOf(
      trx,
      t,
      months.filter((m) => current.has(m.tenant_id)),
    ),
  };
}

/** The longer spans (quarter, 年度) holding the month `m`. */
const longerSpans = (m: RawBuilder<unknown>) => sql`(VALUES
  ('quarter', date_trunc('quarter', ${m})::date),
  ('fiscal_year', (date_trunc('year', ${m} - interval '3 months') + interval '3 months')::date)) s(span, period_start)`;

/**
 * After the batch rewrote the institution-months' rollups: tenants summed against the current master add
 * the difference their institution-months made (after minus before, both joined to the same master), and
 * remove rows left at zero; the other tenants have all their rows summed again against the master as it
 * is now (once after each master sync). While a sync runs nothing is summed and the tenants' rows are
 * marked unusable, to be summed again by their next batch.
 */
export async function attributesAfter(
  trx: Transaction<unknown>,
  t: Tables,
  months: readonly InstitutionMonth[],
  { runs, current, before }: AttributeBatch,
): Promise<void> {
  const tenants = [...new Set(months.map((m) => m.tenant_id))];
  const stale = tenants.filter((id) => !current.has(id));
  const after = await sumsOf(
    trx,
    t,
    months.filter((m) => current.has(m.tenant_id)),
  );
  await applyChartDeltas(trx, t, delta(before.chart, after.chart, chartKey, counts4), 'month');
  await applyChartDeltas(trx, t, delta(before.days, after.days, chartKey, counts4), 'day');
  await applyMdcDeltas(trx, t, delta(before.mdc, after.mdc, mdcKey, counts3));
  if (stale.length === 0) return;
  if (runs !== null) for (const tenantId of stale) await resumTenant(trx, t, tenantId);
  await sql`
    INSERT INTO ${sql.table(t.referral_attribute_bases)} AS cur (tenant_id, master_runs)
    SELECT id, ${runs}::int FROM unnest(${sql.val(stale)}::uuid[]) AS id
    ON CONFLICT (tenant_id) DO UPDATE SET master_runs = excluded.master_runs`.execute(trx);
}

const chartKey = (r: ChartSum) =>
  `${r.tenant_id}|${r.facility_type_id}|${r.prefecture_code}|${r.city}|${r.own_department_id}|${r.referral_department}|${r.visit}|${r.month}`;
const mdcKey = (r: MdcSum) =>
  `${r.tenant_id}|${r.facility_type_id}|${r.prefecture_code}|${r.prefecture}|${r.city}|${r.mdc}|${r.month}`;

/** `after − before` per key, the keys whose counts all stay the same left out. */
function delta<R extends object>(
  before: R[],
  after: R[],
  key: (r: R) => string,
  columns: readonly (keyof R & string)[],
): R[] {
  const sums = new Map<string, R>();
  const add = (r: R, sign: number) => {
    const k = key(r);
    const d = sums.get(k) ?? ({ ...r, ...Object.fromEntries(columns.map((c) => [c, 0])) } as R);
    for (const c of columns) (d as Record<string, number>)[c] = (d as Record<string, number>)[c]! + sign * Number(r[c]);
    sums.set(k, d);
  };
  for (const r of before) add(r, -1);
  for (const r of after) add(r, 1);
  return [...sums.values()].filter((d) => columns.some((c) => (d as Record<string, number>)[c] !== 0));
}

/**
 * Adds month rows (`period` 'month') to the three tables of that grain, or day rows ('day', the day in
 * `month`) to the three of that one.
 */
async function applyChartDeltas(
  trx: Transaction<unknown>,
  t: Tables,
  rows: ChartSum[],
  period: 'month' | 'day',
): Promise<void> {
  if (rows.length === 0) return;
  const col = <K extends keyof ChartSum>(k: K, type: string) =>
    sql`${sql.val(rows.map((r) => r[k]))}::${sql.raw(type)}`;
  const k = sql`unnest(${col('tenant_id', 'uuid[]')}, ${col('facility_type_id', 'int[]')}, ${col('prefecture_code', 'int[]')},
                       ${col('city', 'text[]')}, ${col('own_department_id', 'uuid[]')}, ${col('referral_department', 'text[]')},
                       ${col('visit', 'text[]')}, ${col('month', 'date[]')}, ${col('referral_count', 'int[]')},
                       ${col('admitted_count', 'int[]')}, ${col('operated_count', 'int[]')}, ${col('reverse_referral_count', 'int[]')})
                AS k(tenant_id, facility_type_id, prefecture_code, city, own_department_id, referral_department, visit,
                     ${sql.raw(period)}, referral_count, admitted_count, operated_count, reverse_referral_count)`;
  for (const [table, attributes] of period === 'month'
    ? ([
        [t.referral_facility_type_rollups, 'facility_type_id'],
        [t.referral_prefecture_rollups, 'prefecture_code'],
        [t.referral_area_rollups, 'facility_type_id, prefecture_code, city'],
      ] as const)
    : ([
        [t.referral_facility_type_daily_rollups, 'facility_type_id'],
        [t.referral_prefecture_daily_rollups, 'prefecture_code'],
        [t.referral_area_daily_rollups, 'facility_type_id, prefecture_code, city'],
      ] as const)) {
    const keyColumns = `tenant_id, ${attributes}, ${period}, own_department_id, referral_department, visit`;
    await sql`
      INSERT INTO ${sql.table(table)} AS cur (${sql.raw(keyColumns)}, ${sql.raw(counts4.join(', '))})
      SELECT ${sql.raw(keyColumns)}, ${sql.raw(counts4.map((c) => `sum(${c})::int`).join(', '))} FROM ${k}
       GROUP BY ${sql.raw(keyColumns)}
      ON CONFLICT (${sql.raw(keyColumns)}) DO UPDATE SET ${sql.raw(counts4.map((c) => `${c} = cur.${c} + excluded.${c}`).join(', '))}`.execute(
      trx,
    );
    await sql`
      DELETE FROM ${sql.table(table)} AS cur USING ${k}
       WHERE ${sql.raw(
         keyColumns
           .split(', ')
           .map((c) => `cur.${c} = k.${c}`)
           .join(' AND '),
       )} AND ${sql.raw(counts4.map((c) => `cur.${c} = 0`).join(' AND '))}`.execute(trx);
  }
}

async function applyMdcDeltas(trx: Transaction<unknown>, t: Tables, rows: MdcSum[]): Promise<void> {
  if (rows.length === 0) return;
  const col = <K extends keyof MdcSum>(k: K, type: string) => sql`${sql.val(rows.map((r) => r[k]))}::${sql.raw(type)}`;
  const k = sql`unnest(${col('tenant_id', 'uuid[]')}, ${col('facility_type_id', 'int[]')}, ${col('prefecture_code', 'int[]')},
                       ${col('prefecture', 'text[]')}, ${col('city', 'text[]')}, ${col('mdc', 'text[]')}, ${col('month', 'date[]')},
                       ${col('referral_count', 'int[]')}, ${col('admitted_count', 'int[]')}, ${col('operated_count', 'int[]')})
                AS k(tenant_id, facility_type_id, prefecture_code, prefecture, city, mdc, month, referral_count, admitted_count,
                     operated_count)`;
  for (const [table, attributes] of [
    [t.referral_attribute_mdc_rollups, 'facility_type_id, prefecture_code, prefecture'],
    [t.referral_area_mdc_rollups, 'facility_type_id, prefecture_code, prefecture, city'],
  ] as const) {
    const keyColumns = `tenant_id, span, period_start, ${attributes}, mdc`;
    const fromK = `k.tenant_id, s.span, s.period_start, ${attributes
      .split(', ')
      .map((c) => `k.${c}`)
      .join(', ')}, k.mdc`;
    await sql`
      INSERT INTO ${sql.table(table)} AS cur (${sql.raw(keyColumns)}, ${sql.raw(counts3.join(', '))})
      SELECT ${sql.raw(fromK)}, ${sql.raw(counts3.map((c) => `sum(k.${c})::int`).join(', '))}
        FROM ${k}
        CROSS JOIN LATERAL (SELECT 'month' AS span, k.month AS period_start UNION ALL SELECT * FROM ${longerSpans(sql`k.month`)}) s
       GROUP BY ${sql.raw(fromK)}
      ON CONFLICT (${sql.raw(keyColumns)}) DO UPDATE SET ${sql.raw(counts3.map((c) => `${c} = cur.${c} + excluded.${c}`).join(', '))}`.execute(
      trx,
    );
    await sql`
      DELETE FROM ${sql.table(table)} AS cur USING ${k}
       WHERE cur.tenant_id = k.tenant_id AND ${sql.raw(
         [...attributes.split(', '), 'mdc'].map((c) => `cur.${c} = k.${c}`).join(' AND '),
       )}
         AND cur.period_start IN (k.month, date_trunc('quarter', k.month)::date,
                                  (date_trunc('year', k.month - interval '3 months') + interval '3 months')::date)
         AND ${sql.raw(counts3.map((c) => `cur.${c} = 0`).join(' AND '))}`.execute(trx);
  }
}

/** Every attribute row of a tenant summed again from its per-institution rows joined to the master as it is. */
async function resumTenant(trx: Transaction<unknown>, t: Tables, tenantId: string): Promise<void> {
  for (const [table, attributes, values] of [
    [t.referral_facility_type_rollups, 'facility_type_id', [facilityTypeOf]],
    [t.referral_prefecture_rollups, 'prefecture_code', [prefectureCodeOf]],
    [t.referral_area_rollups, 'facility_type_id, prefecture_code, city', [facilityTypeOf, prefectureCodeOf, cityOf]],
  ] as const) {
    await sql`DELETE FROM ${sql.table(table)} WHERE tenant_id = ${tenantId}`.execute(trx);
    await sql`
      INSERT INTO ${sql.table(table)} (tenant_id, ${sql.raw(attributes)}, month, own_department_id, referral_department, visit,
                                       ${sql.raw(counts4.join(', '))})
      SELECT p.tenant_id, ${sql.join(values)}, date_trunc('month', p.segment)::date, p.own_department_id,
             p.referral_department, p.visit, ${sql.raw(counts4.map((c) => `sum(p.${c})::int`).join(', '))}
        FROM ${sql.table(t.referral_period_rollups)} p
        LEFT JOIN ref.medical_institutions m ON m.id = p.medical_institution_id
       WHERE p.tenant_id = ${tenantId}
       GROUP BY ${sql.raw(Array.from({ length: values.length + 5 }, (_, i) => i + 1).join(', '))}`.execute(trx);
  }
  for (const [table, attributes, values] of [
    [t.referral_facility_type_daily_rollups, 'facility_type_id', [facilityTypeOf]],
    [t.referral_prefecture_daily_rollups, 'prefecture_code', [prefectureCodeOf]],
    [
      t.referral_area_daily_rollups,
      'facility_type_id, prefecture_code, city',
      [facilityTypeOf, prefectureCodeOf, cityOf],
    ],
  ] as const) {
    await sql`DELETE FROM ${sql.table(table)} WHERE tenant_id = ${tenantId}`.execute(trx);
    await sql`
      INSERT INTO ${sql.table(table)} (tenant_id, ${sql.raw(attributes)}, day, own_department_id, referral_department, visit,
                                       ${sql.raw(counts4.join(', '))})
      SELECT d.tenant_id, ${sql.join(values)}, d.day, d.own_department_id, d.referral_department, d.visit,
             ${sql.raw(counts4.map((c) => `sum(d.${c})::int`).join(', '))}
        FROM ${sql.table(t.referral_daily_rollups)} d
        LEFT JOIN ref.medical_institutions m ON m.id = d.medical_institution_id
       WHERE d.tenant_id = ${tenantId}
       GROUP BY ${sql.raw(Array.from({ length: values.length + 5 }, (_, i) => i + 1).join(', '))}`.execute(trx);
  }
  for (const [table, attributes, values] of [
    [
      t.referral_attribute_mdc_rollups,
      'facility_type_id, prefecture_code, prefecture',
      [facilityTypeOf, prefectureCodeOf, sql`coalesce(m.prefecture, '')`],
    ],
    [
      t.referral_area_mdc_rollups,
      'facility_type_id, prefecture_code, prefecture, city',
      [facilityTypeOf, prefectureCodeOf, sql`coalesce(m.prefecture, '')`, cityOf],
    ],
  ] as const) {
    await sql`DELETE FROM ${sql.table(table)} WHERE tenant_id = ${tenantId}`.execute(trx);
    await sql`
      INSERT INTO ${sql.table(table)} (tenant_id, span, period_start, ${sql.raw(attributes)}, mdc, ${sql.raw(counts3.join(', '))})
      SELECT i.tenant_id, i.span, i.period_start, ${sql.join(values)}, i.mdc,
             ${sql.raw(counts3.map((c) => `sum(i.${c})::int`).join(', '))}
        FROM ${sql.table(t.referral_institution_mdc_rollups)} i
        LEFT JOIN ref.medical_institutions m ON m.id = i.medical_institution_id
       WHERE i.tenant_id = ${tenantId}
       GROUP BY ${sql.raw(Array.from({ length: values.length + 4 }, (_, i) => i + 1).join(', '))}`.execute(trx);
  }
}

/**
 * A tenant's attribute rows built from its per-institution rows (which must be current) against the
 * master as it is, and its basis noted: the bulk build after `rebuildTenantDayAndMdcRollups` (facts
 * written beside the events), the same statements a batch runs after a master sync.
 */
export async function rebuildTenantAttributeRollups(
  trx: Transaction<unknown>,
  t: Tables,
  tenantId: string,
): Promise<void> {
  const runs = await masterRuns(trx);
  if (runs !== null) await resumTenant(trx, t, tenantId);
  await sql`
    INSERT INTO ${sql.table(t.referral_attribute_bases)} AS cur (tenant_id, master_runs) VALUES (${tenantId}, ${runs}::int)
    ON CONFLICT (tenant_id) DO UPDATE SET master_runs = excluded.master_runs`.execute(trx);
}
