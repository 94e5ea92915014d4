import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { ReferralReportBody } from '@renkei/contracts';
import { splitForRollups, type DateRange } from '@renkei/domain';
import { noCity, noFacilityType, type ReadModels } from '@renkei/read-models';
import { institutionConditions, splitBySpans } from '../charts/analysis.queries.ts';

type GroupingKey = ReferralReportBody['grouping_conditions'][number];
const noDepartment = '00000000-0000-0000-0000-000000000000';

/**
 * What each grouping key groups by (`value`, shown) and, for records, the id beside it (`id`, under
 * `<key>_id` in the answer). `year` is the 年度; institution facts come from the master.
 */
const groupingSql: Record<GroupingKey, { value: RawBuilder<unknown>; id?: RawBuilder<unknown> }> = {
  medical_institution: { value: sql`m.name`, id: sql`c.medical_institution_id::text` },
  own_department: {
    value: sql`CASE WHEN c.own_department_id = ${noDepartment}::uuid THEN NULL ELSE coalesce(d.name, '') END`,
    id: sql`nullif(c.own_department_id, ${noDepartment}::uuid)::text`,
  },
  referral_department: { value: sql`nullif(c.referral_department, '')` },
  month: { value: sql`to_char(c.month, 'YYYY-MM')` },
  year: { value: sql`to_char(c.month - interval '3 months', 'YYYY') || '年度'` },
  facility_type: { value: sql`m.facility_type_id::text` },
  prefecture: { value: sql`nullif(m.prefecture, '')` },
  city: { value: sql`nullif(m.city, '')` },
  mdc: { value: sql`nullif(c.mdc, '')` },
  kcode: { value: sql`nullif(c.kcode, '')` },
};

/**
 * The case-mix rows of a period: the monthly rollups for its whole months, and for a partial month at
 * either end the facts of its days, grouped the way the projection groups them (MDC of the first stay
 * that followed, K-code of the first with an operation), so a period ending today is exact to the day.
 * `caseMix` false (no MDC or K-code asked): the partial month's whole weeks from the segment rollups
 * and its other days from the day rollups.
 */
function caseSource(
  tenantId: string,
  period: DateRange,
  institutionLevel: boolean,
  caseMix: boolean,
): RawBuilder<unknown> {
  const months = splitForRollups(period, 'month');
  const { inner } = months;
  let edges = months.edges;
  const parts: RawBuilder<unknown>[] = [];
  if (inner)
    parts.push(sql`SELECT tenant_id, ${institutionLevel ? sql`medical_institution_id` : sql`NULL::uuid`} AS medical_institution_id,
                          own_department_id, referral_department, visit, mdc, kcode, month, referral_count, admitted_count, operated_count
                     FROM ${institutionLevel ? sql`rm.referral_case_rollups` : sql`rm.referral_tenant_case_rollups`}
                    WHERE tenant_id = ${tenantId} AND month >= ${inner.from}::date AND month <= ${inner.to}::date`);
  // Without MDC or K-code asked, a partial month's whole weeks come from the segment rows and its other
  // days from the day rows (their reverse-referral-only rows left out): no fact is read.
  if (!caseMix && edges.length > 0) {
    const segments = edges.map((e) => splitForRollups(e, 'segment'));
    const days = segments.flatMap((x) => x.edges);
    edges = [];
    for (const { inner: whole } of segments)
      if (whole)
        parts.push(sql`SELECT tenant_id, ${institutionLevel ? sql`medical_institution_id` : sql`NULL::uuid`} AS medical_institution_id,
                              own_department_id, referral_department, visit, '' AS mdc, '' AS kcode,
                              date_trunc('month', segment)::date AS month, referral_count, admitted_count, operated_count
                         FROM ${institutionLevel ? sql`rm.referral_period_rollups` : sql`rm.referral_tenant_period_rollups`}
                        WHERE tenant_id = ${tenantId} AND segment >= ${whole.from}::date AND segment <= ${whole.to}::date
                          AND referral_count > 0`);
    if (days.length > 0)
      parts.push(sql`SELECT tenant_id, ${institutionLevel ? sql`medical_institution_id` : sql`NULL::uuid`} AS medical_institution_id,
                            own_department_id, referral_department, visit, '' AS mdc, '' AS kcode,
                            date_trunc('month', day)::date AS month, referral_count, admitted_count, operated_count
                       FROM ${institutionLevel ? sql`rm.referral_daily_rollups` : sql`rm.referral_tenant_daily_rollups`}
                      WHERE tenant_id = ${tenantId} AND referral_count > 0 AND (${sql.join(
                        days.map((e) => sql`(day >= ${e.from}::date AND day <= ${e.to}::date)`),
                        sql` OR `,
                      )})`);
  }
  if (edges.length > 0)
    parts.push(sql`SELECT r.tenant_id, r.medical_institution_id, coalesce(r.own_department_id, ${noDepartment}::uuid) AS own_department_id,
                          coalesce(r.from_department, '') AS referral_department,
                          CASE WHEN r.first_visit THEN 'first' WHEN NOT r.first_visit THEN 'return' ELSE 'unknown' END AS visit,
                          coalesce(left(s.dpc_code, 2), '') AS mdc, coalesce(o.kcode, '') AS kcode,
                          date_trunc('month', r.referral_date)::date AS month, 1 AS referral_count,
                          (s.found IS NOT NULL)::int AS admitted_count, (o.kcode IS NOT NULL)::int AS operated_count
                     FROM rm.referrals r
                     LEFT JOIN LATERAL (
                       SELECT true AS found, a.dpc_code FROM rm.hospital_admissions a
                        WHERE a.tenant_id = r.tenant_id AND a.referral_id = r.id ORDER BY a.admission_date, a.id LIMIT 1) s ON true
                     LEFT JOIN LATERAL (
                       SELECT a.kcode FROM rm.hospital_admissions a
                        WHERE a.tenant_id = r.tenant_id AND a.referral_id = r.id AND a.kcode IS NOT NULL
                        ORDER BY a.admission_date, a.id LIMIT 1) o ON true
                    WHERE r.tenant_id = ${tenantId} AND r.medical_institution_id IS NOT NULL
                      AND (${sql.join(
                        edges.map(
                          (e) => sql`(r.referral_date >= ${e.from}::date AND r.referral_date <= ${e.to}::date)`,
                        ),
                        sql` OR `,
                      )})`);
  if (parts.length === 0) return sql`(SELECT * FROM rm.referral_case_rollups WHERE false)`;
  return sql`(${sql.join(parts, sql` UNION ALL `)})`;
}

const rate = (part: number, whole: number) => (whole === 0 ? null : part / whole);

/**
 * The aggregation grouped by facility type, prefecture, city and MDC only (whole months, nothing of the
 * referral filtered) from the rows keyed by the master's facility type and prefecture (and city, when
 * the city is asked): a few thousand rows a 年度 instead of one per institution and MDC joined to the
 * master. Null when those rows were not summed
 * against the master as it is now (a sync since), and the caller reads the per-institution rows.
 */
async function attributeRows(
  db: Kysely<ReadModels>,
  tenantId: string,
  body: ReferralReportBody,
  keys: GroupingKey[],
  pieces: { span: string; from: string; to: string }[],
): Promise<Record<string, string | number | null>[] | null> {
  const f = body.filter_conditions;
  const value: Partial<Record<GroupingKey, RawBuilder<unknown>>> = {
    facility_type: sql`CASE WHEN a.facility_type_id = ${noFacilityType} THEN NULL ELSE a.facility_type_id::text END`,
    prefecture: sql`nullif(a.prefecture, '')`,
    // Null for no city and for an institution not in the master, as the master join answers both.
    city: sql`CASE WHEN a.city IN ('', ${noCity}) THEN NULL ELSE a.city END`,
    mdc: sql`nullif(a.mdc, '')`,
  };
  const where: RawBuilder<unknown>[] = [];
  if (f.mdc_ids.length > 0) where.push(sql`a.mdc = ANY(${sql.val(f.mdc_ids)}::text[])`);
  // The same ids as the master join takes (institutionConditions): integers as the master writes them.
  if (f.facility_type_ids.length > 0)
    where.push(
      sql`a.facility_type_id = ANY(${sql.val(f.facility_type_ids.filter((id) => /^-?(0|[1-9]\d{0,8})$/.test(id)).map(Number))}::int[])`,
    );
  if (f.prefectures.length > 0) where.push(sql`a.prefecture_code = ANY(${sql.val(f.prefectures.map(Number))}::int[])`);
  // As institutionConditions compares the master's city: with the filter normalised to NFKC.
  if (f.cities.length > 0) where.push(sql`a.city = ANY(${sql.val(f.cities.map((c) => c.normalize('NFKC')))}::text[])`);
  const columns = keys.map((k, i) => sql`${value[k]!} AS ${sql.ref(`k${i}`)}`);
  // The rows keyed by city only when the city is asked: they are split many more ways.
  const table =
    keys.includes('city') || f.cities.length > 0
      ? sql`rm.referral_area_mdc_rollups`
      : sql`rm.referral_attribute_mdc_rollups`;
  const { rows } = await sql<Record<string, string | number | null> & { ok: boolean }>`
    WITH basis AS (
      SELECT coalesce((SELECT b.master_runs = (SELECT count(*)::int FROM ref.sync_runs WHERE kind = 'medical_institutions')
                         FROM rm.referral_attribute_bases b WHERE b.tenant_id = ${tenantId}), false) AS ok)
    SELECT basis.ok, s.* FROM basis LEFT JOIN LATERAL (
      SELECT ${sql.join(columns)}, sum(a.referral_count)::int AS referral_count, sum(a.admitted_count)::int AS admitted,
             sum(a.operated_count)::int AS operated
        FROM (${sql.join(
          pieces.map(
            (piece) => sql`SELECT * FROM ${table}
                            WHERE basis.ok AND tenant_id = ${tenantId} AND span = ${piece.span}
                              AND period_start >= ${piece.from}::date AND period_start <= ${piece.to}::date`,
          ),
          sql` UNION ALL `,
        )}) a
       ${where.length > 0 ? sql`WHERE ${sql.join(where, sql` AND `)}` : sql``}
       GROUP BY ${sql.join(columns.map((_, i) => sql.lit(i + 1)))}
      HAVING sum(a.referral_count) > 0) s ON true
     ORDER BY s.referral_count DESC, ${sql.join(keys.map((_, i) => sql`s.${sql.ref(`k${i}`)} NULLS LAST`))}`.execute(
    db,
  );
  if (!rows[0]?.ok) return null;
  return rows.filter((r) => r.referral_count !== null);
}

/**
 * The referral aggregation: referrals, the referrals a stay followed (admissions) and those with an
 * operation, grouped by up to three keys, from the monthly case-mix rollups (per tenant when nothing
 * of the institution is asked) and, for a partial month at the period's ends, the segment and day
 * rollups (the facts when MDC or K-code is asked). Biggest referral count first, then by the keys.
 */
export async function referralAggregation(db: Kysely<ReadModels>, tenantId: string, body: ReferralReportBody) {
  const f = body.filter_conditions;
  const keys = [...new Set(body.grouping_conditions)];
  const where: RawBuilder<unknown>[] = [sql`c.tenant_id = ${tenantId}`];
  if (f.own_department_ids.length > 0)
    where.push(sql`c.own_department_id = ANY(${sql.val(f.own_department_ids)}::uuid[])`);
  if (f.medical_institution_ids.length > 0)
    where.push(sql`c.medical_institution_id = ANY(${sql.val(f.medical_institution_ids)}::uuid[])`);
  if (f.mdc_ids.length > 0) where.push(sql`c.mdc = ANY(${sql.val(f.mdc_ids)}::text[])`);
  if (f.first_visit === 'first_visit') where.push(sql`c.visit = 'first'`);
  if (f.first_visit === 'return_visit') where.push(sql`c.visit = 'return'`);
  // Nothing of the institution asked: the per-tenant sums, a fraction of the rows.
  const institutionKeys: GroupingKey[] = ['medical_institution', 'facility_type', 'prefecture', 'city'];
  const institutionLevel =
    keys.some((k) => institutionKeys.includes(k)) ||
    f.medical_institution_ids.length > 0 ||
    f.facility_type_ids.length > 0 ||
    f.prefectures.length > 0 ||
    f.cities.length > 0 ||
    f.tag_ids.length > 0;
  const caseMix = keys.includes('mdc') || keys.includes('kcode') || f.mdc_ids.length > 0;

  // The rollup rows summed first by the columns the keys read, so the master and the department names
  // are joined once per institution (and key) rather than once per rollup row.
  const keyColumns: Record<GroupingKey, string[]> = {
    medical_institution: ['medical_institution_id'],
    own_department: ['own_department_id'],
    referral_department: ['referral_department'],
    month: ['month'],
    year: ['month'],
    facility_type: ['medical_institution_id'],
    prefecture: ['medical_institution_id'],
    city: ['medical_institution_id'],
    mdc: ['mdc'],
    kcode: ['kcode'],
  };
  const kept = [
    ...new Set([
      'tenant_id',
      ...(institutionLevel ? ['medical_institution_id'] : []),
      ...keys.flatMap((k) => keyColumns[k]),
    ]),
  ];
  // Nothing asked of the referral but its institution and MDC, over whole months: the per-institution
  // MDC rows of whole 年度, quarters and months, a few rows per institution.
  const mdcPieces = splitBySpans(f.period, ['fiscal_year', 'quarter', 'month']);
  const mdcOnly =
    mdcPieces.length > 0 &&
    institutionLevel &&
    keys.every((k) => [...institutionKeys, 'mdc'].includes(k)) &&
    f.own_department_ids.length === 0 &&
    f.first_visit === 'all' &&
    splitBySpans(f.period, ['month'], true).length === 0;
  const byAttributes =
    mdcOnly &&
    keys.every((k) => k === 'facility_type' || k === 'prefecture' || k === 'city' || k === 'mdc') &&
    f.medical_institution_ids.length === 0 &&
    f.tag_ids.length === 0
      ? await attributeRows(db, tenantId, body, keys, mdcPieces)
      : null;
  const source = mdcOnly
    ? sql`(${sql.join(
        mdcPieces.map(
          (piece) => sql`SELECT tenant_id, medical_institution_id, mdc, referral_count, admitted_count, operated_count
                           FROM rm.referral_institution_mdc_rollups
                          WHERE tenant_id = ${tenantId} AND span = ${piece.span}
                            AND period_start >= ${piece.from}::date AND period_start <= ${piece.to}::date`,
        ),
        sql` UNION ALL `,
      )})`
    : caseSource(tenantId, f.period, institutionLevel, caseMix);
  // One piece of per-institution MDC rows is already one row per (institution, MDC): nothing to sum first.
  const summedSource =
    mdcOnly && mdcPieces.length === 1
      ? sql`(SELECT * FROM ${source} c WHERE ${sql.join(where, sql` AND `)})`
      : sql`(
    SELECT ${sql.join(kept.map((c) => sql.ref(`c.${c}`)))},
           sum(c.referral_count) AS referral_count, sum(c.admitted_count) AS admitted_count, sum(c.operated_count) AS operated_count
      FROM ${source} c
     WHERE ${sql.join(where, sql` AND `)}
     GROUP BY ${sql.join(kept.map((c) => sql.ref(`c.${c}`)))})`;
  const outer = institutionLevel ? institutionConditions(tenantId, f, sql`c.medical_institution_id`) : [];

  const columns = keys.flatMap((k, i) => {
    const g = groupingSql[k];
    return [sql`${g.value} AS ${sql.ref(`k${i}`)}`, ...(g.id ? [sql`${g.id} AS ${sql.ref(`id${i}`)}`] : [])];
  });
  // By position: an expression with parameters is not the same expression twice to Postgres.
  const groupBy = columns.map((_, i) => sql.lit(i + 1));
  const statement = sql<Record<string, string | number | null>>`
    SELECT ${sql.join(columns)},
           sum(c.referral_count)::int AS referral_count, sum(c.admitted_count)::int AS admitted,
           sum(c.operated_count)::int AS operated
      FROM ${summedSource} c
      ${institutionLevel ? sql`LEFT JOIN ref.medical_institutions m ON m.id = c.medical_institution_id` : sql``}
      ${keys.includes('own_department') ? sql`LEFT JOIN rm.own_departments d ON d.tenant_id = c.tenant_id AND d.id = c.own_department_id` : sql``}
     ${outer.length > 0 ? sql`WHERE ${sql.join(outer, sql` AND `)}` : sql``}
     GROUP BY ${sql.join(groupBy)}
     ORDER BY referral_count DESC, ${sql.join(keys.map((_, i) => sql`${sql.ref(`k${i}`)} NULLS LAST`))}`;
  // The planner guesses ten times the groups there are (a few thousand from 100,000 institution × MDC
  // rows) and, above the default work_mem, sorts the rows by their text keys instead of hashing them:
  // a spilled collation sort that took most of the time at 5,000,000 referrals.
  const { rows } = byAttributes
    ? { rows: byAttributes }
    : institutionLevel
      ? await db.transaction().execute(async (trx) => {
          await sql`SET LOCAL work_mem = '64MB'`.execute(trx);
          return statement.execute(trx);
        })
      : await statement.execute(db);
  return {
    data: rows.map((r) => {
      const referrals = Number(r.referral_count);
      const admitted = Number(r.admitted);
      const operated = Number(r.operated);
      const grouping: Record<string, string | null> = {};
      keys.forEach((k, i) => {
        grouping[k] = (r[`k${i}`] as string | null) ?? null;
        if (groupingSql[k].id) grouping[`${k}_id`] = (r[`id${i}`] as string | null) ?? null;
      });
      return {
        grouping_keys: grouping,
        referral_count: referrals,
        hospital_admission_count: admitted,
        hospital_admission_rate: rate(admitted, referrals),
        operation_count: operated,
        operation_rate: rate(operated, referrals),
      };
    }),
  };
}
