import type { ReportBucket } from '@renkei/contracts';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { ReadModels } from '../../read-models.ts';
import type { ReportSourceRow } from './report-source.ts';
import { pieceColumns } from './bucket-pieces.ts';

/** The nil uuid: the rollups' "no own department". */
export const noOwnDepartment = '00000000-0000-0000-0000-000000000000';

/** The referral figure items, each the sum of the `facts` column of the same name in `referralFacts`. */
const summedFigures = [
  'referral_count',
  'first_visit_count',
  'hospital_admission_count',
  'operation_count',
  'reverse_referral_count',
] as const;
/**
 * Distinct institutions with a referral in the bucket: not a sum of the pieces (an institution referring
 * in two months of a quarter is one), so counted over the institutions' per-bucket sums.
 */
const referringInstitutionCount = 'referring_institution_count';

const ownDepartmentFilter = (alias: string, ids: readonly string[]) =>
  ids.length > 0 ? sql` AND ${sql.ref(`${alias}.own_department_id`)} = ANY(${sql.val(ids)}::uuid[])` : sql``;

/** Narrows a rollup to some institutions (absent: every one). */
export const institutionFilter = (alias: string, ids: readonly string[] | undefined) =>
  ids ? sql` AND ${sql.ref(`${alias}.medical_institution_id`)} = ANY(${sql.val(ids)}::uuid[])` : sql``;

/**
 * The common table expressions `pieces, facts` every report reads referral figures from, exact to the
 * day for any bucket: each bucket (clipped to its period) is split by `piecesOf` into whole calendar
 * months (`referral_monthly_rollups`), whole segments, the Monday–Sunday parts of a month
 * (`referral_period_rollups`), and the days left over (`referral_daily_rollups`). `facts` has one row per
 * rollup row and piece: `slot` (as `periodSlots` numbers buckets), `set` ('p' period, 'c' comparison), `bucket` (key), `medical_institution_id`,
 * `own_department_id` and the counts `referral_count`, `first_visit_count`, `hospital_admission_count`,
 * `operation_count`, `reverse_referral_count`. Null when there is no bucket. Own departments narrow
 * every rollup alike (the nil uuid is "none"), and `institutionIds` (when given) to those institutions.
 */
export function referralFacts(options: {
  tenantId: string;
  buckets: readonly ReportBucket[];
  comparisonBuckets: readonly ReportBucket[];
  ownDepartmentIds: readonly string[];
  institutionIds?: readonly string[];
}): RawBuilder<unknown> | null {
  const p = pieceColumns(options.buckets, options.comparisonBuckets);
  if (p.count === 0) return null;
  const tenant = options.tenantId;
  const departments = options.ownDepartmentIds;
  const only = options.institutionIds;
  // Below a month, first visits are the `visit` kind of the row, not a column.
  const finer = (alias: string) => sql`${sql.ref(`${alias}.medical_institution_id`)},
             ${sql.ref(`${alias}.own_department_id`)}, ${sql.ref(`${alias}.referral_count`)},
             CASE WHEN ${sql.ref(`${alias}.visit`)} = 'first' THEN ${sql.ref(`${alias}.referral_count`)} ELSE 0 END,
             ${sql.ref(`${alias}.admitted_count`)}, ${sql.ref(`${alias}.operated_count`)},
             ${sql.ref(`${alias}.reverse_referral_count`)}`;
  return sql`pieces AS MATERIALIZED (
      SELECT * FROM unnest(${sql.val(p.slots)}::int[], ${sql.val(p.sets)}::text[], ${sql.val(p.buckets)}::text[],
                           ${sql.val(p.kinds)}::text[], ${sql.val(p.froms)}::date[], ${sql.val(p.tos)}::date[])
             AS p(slot, set, bucket, kind, from_day, to_day)),
    facts (slot, set, bucket, medical_institution_id, own_department_id, referral_count, first_visit_count,
           hospital_admission_count, operation_count, reverse_referral_count) AS (
      SELECT p.slot, p.set, p.bucket, r.medical_institution_id, r.own_department_id, r.referral_count, r.first_visit_count,
             r.admitted_count, r.operated_count, r.reverse_referral_count
        FROM pieces p
        JOIN rm.referral_monthly_rollups r
          ON r.tenant_id = ${tenant} AND r.month = p.from_day${ownDepartmentFilter('r', departments)}${institutionFilter('r', only)}
       WHERE p.kind = 'month'
      UNION ALL
      SELECT p.slot, p.set, p.bucket, ${finer('s')}
        FROM pieces p
        JOIN rm.referral_period_rollups s
          ON s.tenant_id = ${tenant} AND s.segment = p.from_day${ownDepartmentFilter('s', departments)}${institutionFilter('s', only)}
       WHERE p.kind = 'segment'
      UNION ALL
      SELECT p.slot, p.set, p.bucket, ${finer('d')}
        FROM pieces p
        JOIN rm.referral_daily_rollups d
          ON d.tenant_id = ${tenant} AND d.day BETWEEN p.from_day AND p.to_day${ownDepartmentFilter('d', departments)}${institutionFilter('d', only)}
       WHERE p.kind = 'day')`;
}

/**
 * The figures of one group (institution, own department): per cell it has, `slots` the position of its
 * bucket (`periodSlots`: the period's buckets, then the comparison period's) and `counts` per item the
 * count, aligned. One row per group, not per set, bucket and figure: at 20,000 institutions × 24 buckets a
 * row (and a JavaScript object) per cell was most of a report's time; positions as integers rather than
 * bucket keys as text halve what the driver parses.
 */
export interface GroupFigures {
  group_id: string;
  slots: number[];
  counts: Record<string, number[]>;
}

/** The slots of a request's buckets as the columns of an `unnest`: slot, bucket key, first and last day. */
export function periodSlots(buckets: readonly ReportBucket[], comparisonBuckets: readonly ReportBucket[]) {
  const all = [...buckets, ...comparisonBuckets];
  return {
    slots: all.map((_, i) => i),
    keys: all.map((b) => b.key),
    froms: all.map((b) => b.from),
    tos: all.map((b) => b.to),
  };
}

/** The span of `referral_institution_rollups` a bucket is exactly one row of, if any. */
function institutionSpanOf(bucket: ReportBucket): 'month' | 'quarter' | 'fiscal_year' | null {
  const [y, m, d] = bucket.from.split('-').map(Number) as [number, number, number];
  if (d !== 1) return null;
  const lastDayAfter = (months: number) => new Date(Date.UTC(y, m - 1 + months, 0)).toISOString().slice(0, 10);
  if (bucket.to === lastDayAfter(1)) return 'month';
  if (m % 3 === 1 && bucket.to === lastDayAfter(3)) return 'quarter';
  if (m === 4 && bucket.to === lastDayAfter(12)) return 'fiscal_year';
  return null;
}

/**
 * The cells (`slot, group_id` and the asked counts) read straight from the per-institution
 * rollups, when every bucket is one of their rows (whole months, quarters or 年度), no own department
 * narrows the figures and first visits (not kept there) are not asked: one row per institution and
 * bucket, already summed over own departments, so nothing is aggregated twice. Null otherwise.
 */
function institutionRollupCells(options: {
  tenantId: string;
  buckets: readonly ReportBucket[];
  comparisonBuckets: readonly ReportBucket[];
  items: ReadonlySet<string>;
  ownDepartmentIds: readonly string[];
  institutionIds?: readonly string[];
}): RawBuilder<unknown> | null {
  if (options.ownDepartmentIds.length > 0 || options.items.has('first_visit_count')) return null;
  const all = [
    ...options.buckets.map((b) => ({ bucket: b, span: institutionSpanOf(b) })),
    ...options.comparisonBuckets.map((b) => ({ bucket: b, span: institutionSpanOf(b) })),
  ];
  if (all.length === 0 || all.some((b) => b.span === null)) return null;
  return sql`cells AS (
      SELECT b.slot, r.medical_institution_id AS group_id, r.referral_count,
             r.admitted_count AS hospital_admission_count, r.operated_count AS operation_count,
             r.reverse_referral_count, (r.referral_count > 0)::int AS ${sql.ref(referringInstitutionCount)}
        FROM unnest(${sql.val(all.map((_, i) => i))}::int[], ${sql.val(all.map((b) => b.span))}::text[],
                    ${sql.val(all.map((b) => b.bucket.from))}::date[])
             AS b(slot, span, period_start)
        JOIN rm.referral_institution_rollups r
          ON r.tenant_id = ${options.tenantId} AND r.span = b.span AND r.period_start = b.period_start${institutionFilter('r', options.institutionIds)})`;
}

/**
 * Whether each bucket of the request is exactly one whole calendar month (one `month` piece): its facts
 * then hold one row per institution and own department.
 */
function onePerInstitution(options: {
  buckets: readonly ReportBucket[];
  comparisonBuckets: readonly ReportBucket[];
}): boolean {
  const p = pieceColumns(options.buckets, options.comparisonBuckets);
  return p.kinds.every((k) => k === 'month') && new Set(p.slots).size === p.count;
}

/**
 * Runs a figure statement with room to hash in memory and without JIT compilation: the planner
 * estimates a few thousand (set, bucket, institution) groups from an `unnest` of buckets where there are
 * hundreds of thousands, so at the default work_mem the aggregation spilled to disk (measured: 3.4 s →
 * 1.5 s at 720,000 rollup rows); and it estimates millions of rows for a join of buckets to day ranges,
 * which put a 40,000-visit statement above `jit_above_cost`: 1.7 s, nearly all of it compiling.
 * `SET LOCAL` needs a transaction; inside the caller's own, the statement runs as it is.
 */
export async function runFigureStatement<R>(db: Kysely<ReadModels>, statement: RawBuilder<R>) {
  if (db.isTransaction) return statement.execute(db);
  return db.transaction().execute(async (trx) => {
    await sql`SET LOCAL work_mem = '64MB'`.execute(trx);
    await sql`SET LOCAL jit = off`.execute(trx);
    return statement.execute(trx);
  });
}

/**
 * The referral figures per group (institution or own department) and bucket of the period and the
 * comparison period, in one statement over `referralFacts`: summed per group, bucket and institution
 * first, so `referring_institution_count` is the institutions whose referral count in the bucket is
 * above 0, then per group and bucket (per institution, from `institutionRollupCells` when it can), and
 * answered as one row per group (`GroupFigures`). Only the asked figures (`items`) are answered.
 */
export async function referralFigures(
  db: Kysely<ReadModels>,
  options: {
    tenantId: string;
    buckets: readonly ReportBucket[];
    comparisonBuckets: readonly ReportBucket[];
    items: ReadonlySet<string>;
    groupBy: 'medical_institution_id' | 'own_department_id';
    ownDepartmentIds: readonly string[];
    /** Only these institutions' figures (absent: every institution's). */
    institutionIds?: readonly string[];
  },
): Promise<GroupFigures[]> {
  const keys = [...summedFigures, referringInstitutionCount].filter((k) => options.items.has(k));
  if (keys.length === 0) return [];
  const rollupCells = options.groupBy === 'medical_institution_id' ? institutionRollupCells(options) : null;
  const facts = rollupCells ? null : referralFacts(options);
  if (!rollupCells && !facts) return [];
  const group = sql.ref(`f.${options.groupBy}`);
  // Only the asked sums (referral_count too when the referring institutions are asked).
  const sums = summedFigures.filter(
    (k) => options.items.has(k) || (k === 'referral_count' && keys.includes(referringInstitutionCount)),
  );
  const cells =
    options.groupBy === 'medical_institution_id'
      ? // Grouped by institution the per-institution sums are the cells: one aggregation, not two
        // (tens of thousands of institutions × buckets make the second a costly re-hash).
        sql`cells AS (
      SELECT f.slot, f.medical_institution_id AS group_id,
             ${sql.join(sums.map((k) => sql`sum(${sql.ref(`f.${k}`)})::int AS ${sql.ref(k)}`))},
             (sum(f.referral_count) > 0)::int AS ${sql.ref(referringInstitutionCount)}
        FROM facts f
       GROUP BY f.slot, f.medical_institution_id)`
      : onePerInstitution(options)
        ? // Every bucket one whole month: its facts are the monthly rollups' rows, one per institution
          // and own department already, so each row is an institution's sum (no second aggregation).
          sql`cells AS (
      SELECT f.slot, ${group} AS group_id,
             ${sql.join(sums.map((k) => sql`sum(${sql.ref(`f.${k}`)})::int AS ${sql.ref(k)}`))},
             count(*) FILTER (WHERE f.referral_count > 0)::int AS ${sql.ref(referringInstitutionCount)}
        FROM facts f
       GROUP BY 1, 2)`
        : sql`institutions AS (
      SELECT f.slot, ${group} AS group_id, f.medical_institution_id,
             ${sql.join(sums.map((k) => sql`sum(${sql.ref(`f.${k}`)}) AS ${sql.ref(k)}`))}
        FROM facts f
       GROUP BY 1, 2, 3),
    cells AS (
      SELECT i.slot, i.group_id,
             ${sql.join(sums.map((k) => sql`sum(${sql.ref(`i.${k}`)})::int AS ${sql.ref(k)}`))},
             count(*) FILTER (WHERE i.referral_count > 0)::int AS ${sql.ref(referringInstitutionCount)}
        FROM institutions i
       GROUP BY 1, 2)`;
  // Every array_agg of one group reads its rows in the same order: the arrays stay aligned.
  const { rows } = await runFigureStatement(
    db,
    sql<{ group_id: string; slots: number[] } & Record<string, unknown>>`
    WITH ${
      rollupCells ??
      sql`${facts},
    ${cells}`
    }
    SELECT c.group_id::text AS group_id, array_agg(c.slot) AS slots,
           ${sql.join(keys.map((k) => sql`array_agg(${sql.ref(`c.${k}`)}) AS ${sql.ref(k)}`))}
      FROM cells c
     GROUP BY c.group_id`,
  );
  return rows.map((r) => ({
    group_id: r.group_id,
    slots: r.slots,
    counts: Object.fromEntries(keys.map((k) => [k, (r[k] as (number | string)[]).map(Number)])),
  }));
}

/**
 * Adds loaded group figures to rows by group id, to the period's or the comparison's (rows absent from
 * `byId` are skipped). Every item's cells of a row get every bucket key, in bucket order, zeros too: all
 * cell objects then share one shape, where keys added in the order the rows came made each its own and
 * every later read a slow lookup (measured: most of a 20,000-institution report's JavaScript time).
 */
export function addGroupFigures(
  byId: ReadonlyMap<string, Pick<ReportSourceRow, 'figures' | 'comparisonFigures'>>,
  groups: readonly GroupFigures[],
  buckets: readonly ReportBucket[],
  comparisonBuckets: readonly ReportBucket[],
): void {
  const keys = [...buckets, ...comparisonBuckets].map((b) => b.key);
  const periodTemplate = Object.fromEntries(buckets.map((b) => [b.key, 0])) as Record<string, number>;
  const comparisonTemplate = Object.fromEntries(comparisonBuckets.map((b) => [b.key, 0])) as Record<string, number>;
  const n = buckets.length;
  for (const g of groups) {
    const row = byId.get(g.group_id);
    if (!row) continue;
    for (const item in g.counts) {
      const counts = g.counts[item]!;
      for (let i = 0; i < counts.length; i++) {
        const count = counts[i]!;
        if (count === 0) continue;
        const slot = g.slots[i]!;
        const cells =
          slot < n
            ? (row.figures[item] ??= { ...periodTemplate })
            : (row.comparisonFigures[item] ??= { ...comparisonTemplate });
        cells[keys[slot]!] = cells[keys[slot]!]! + count;
      }
    }
  }
}
