import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { ReadModels } from '@renkei/read-models';
import type {
  MedicalInstitutionSearchConditions,
  Period,
  SalesMapMedicalInstitution,
  SalesMapSearchBody,
} from '@renkei/contracts';
import {
  accountJoin,
  detailColumns,
  fromClause,
  referralFigureCondition,
  referralJoin,
  searchConditions,
  toMedicalInstitution,
  type InstitutionRow,
} from './medical-institutions.queries.ts';

/** The contract leaves integer bounds open; the figures and label values are Postgres integers. */
const intMax = 2_147_483_647;

/** Communication types that count as a visit, as the last visit date and the partner search count them. */
const visitTypes = ['visit', 'new_visit'];

/**
 * The sales map's filters as the partner search's conditions, so both screens narrow the same way:
 * the map's tags match an institution carrying any of them (one `or` group), its labels are the
 * search's label filters.
 */
function partnerConditions(body: SalesMapSearchBody): MedicalInstitutionSearchConditions {
  return {
    facility_type_ids: body.facility_type_ids,
    department_ids: body.department_ids,
    tag_filter_groups: body.tag_ids?.length
      ? [{ search_condition: 'include', logic: 'or', tag_ids: body.tag_ids }]
      : undefined,
    label_filters: body.labels,
    visited_period: body.visits?.visit === 'return_visit' ? body.visits.period : undefined,
  };
}

/** The visible rectangle; a west edge east of the east edge crosses the antimeridian. */
function boundsCondition(bounds: NonNullable<SalesMapSearchBody['bounds']>): RawBuilder<unknown> {
  const lat = sql`m.latitude BETWEEN ${bounds.south}::double precision AND ${bounds.north}::double precision`;
  const lng =
    bounds.west <= bounds.east
      ? sql`m.longitude BETWEEN ${bounds.west}::double precision AND ${bounds.east}::double precision`
      : sql`(m.longitude >= ${bounds.west}::double precision OR m.longitude <= ${bounds.east}::double precision)`;
  return sql`${lat} AND ${lng}`;
}

/**
 * The referral settings with bounds a count can take: a minimum above any integer keeps nothing, a
 * maximum above any integer bounds nothing.
 */
function referralBounds(settings: NonNullable<SalesMapSearchBody['referral_settings']>) {
  const { min_referral_count: min, max_referral_count: max } = settings;
  return {
    impossible: min !== undefined && min > intMax,
    min_referral_count: min !== undefined && min <= intMax ? min : undefined,
    max_referral_count: max !== undefined && max < intMax ? max : undefined,
  };
}

/**
 * `rf.referral_count` of the referral period. Without own departments it is the partner search's
 * grouped join over the per-institution rollups; with them, the monthly rollups (the only rollup kept
 * per own department) of those departments, counted over the whole months the period touches as the
 * partner search counts them.
 */
function referralFigures(tenantId: string, settings: SalesMapSearchBody['referral_settings']): RawBuilder<unknown> {
  if (!settings) return referralJoin(tenantId, {});
  const ownDepartments = settings.own_department_ids;
  const { min_referral_count: min, max_referral_count: max } = referralBounds(settings);
  if (!ownDepartments?.length)
    return referralJoin(
      tenantId,
      { referral_period: settings.period, min_referral_count: min, max_referral_count: max },
      'grouped',
    );
  const p = settings.period;
  const join = min !== undefined && min > 0 ? sql`JOIN` : sql`LEFT JOIN`;
  return sql`${join} (
    SELECT r.medical_institution_id, sum(r.referral_count)::int AS referral_count
      FROM rm.referral_monthly_rollups r
     WHERE r.tenant_id = ${tenantId}
       AND r.month >= date_trunc('month', ${p.from}::date) AND r.month <= ${p.to}::date
       AND r.own_department_id = ANY(${sql.val(ownDepartments)}::uuid[])
     GROUP BY r.medical_institution_id) rfp ON rfp.medical_institution_id = m.id
  CROSS JOIN LATERAL (SELECT coalesce(rfp.referral_count, 0) AS referral_count, NULL::int AS comparison_referral_count) rf`;
}

/** A visit of this tenant to `m` within the period. */
const visitIn = (tenantId: string, period: Period) => sql`EXISTS (
  SELECT 1 FROM rm.communications cv
   WHERE cv.tenant_id = ${tenantId} AND cv.medical_institution_id = m.id
     AND cv.acted_date >= ${period.from}::date AND cv.acted_date <= ${period.to}::date
     AND cv.communication_type = ANY(${sql.val(visitTypes)}::text[]))`;

/**
 * The visit filter (decisions: first_visit = not visited yet — no visit in the period, or none ever
 * without a period: where a first visit is still to be made; return_visit = visited in the period, or
 * ever without a period; all = no narrowing). `return_visit` with a period is the partner search's
 * `visited_period` (see partnerConditions).
 */
function visitCondition(tenantId: string, visits: SalesMapSearchBody['visits']): RawBuilder<unknown> {
  if (!visits || visits.visit === 'all') return sql`true`;
  const { period, visit } = visits;
  if (!period) return visit === 'return_visit' ? sql`lv.last_visit_date IS NOT NULL` : sql`lv.last_visit_date IS NULL`;
  if (visit === 'return_visit') return sql`true`;
  // No last visit on or after the first day settles it without reading the records.
  return sql`(lv.last_visit_date IS NULL OR lv.last_visit_date < ${period.from}::date OR NOT ${visitIn(tenantId, period)})`;
}

/**
 * Visits of the period for the page's rows only: one probe of the (tenant, institution, acted_date)
 * index each. A grouped count of the whole period joined to every candidate made the planner loop over
 * it (~50 ms on the demo's 3,000 institutions).
 */
const visitCount = (tenantId: string, period: Period | undefined) =>
  period
    ? sql`(SELECT count(*)::int FROM rm.communications cv
            WHERE cv.tenant_id = ${tenantId} AND cv.medical_institution_id = m.id
              AND cv.acted_date >= ${period.from}::date AND cv.acted_date <= ${period.to}::date
              AND cv.communication_type = ANY(${sql.val(visitTypes)}::text[]))`
    : sql`NULL::int`;

/**
 * The institutions of the master with coordinates, in the visible rectangle and passing the filters,
 * biggest referrers first (then by name) so a full page always holds them. Institutions without
 * coordinates cannot be drawn and are left out.
 */
export async function searchForSalesMap(db: Kysely<ReadModels>, tenantId: string, body: SalesMapSearchBody) {
  const settings = body.referral_settings;
  const conditions = [
    await searchConditions(db, tenantId, partnerConditions(body)),
    sql`m.latitude IS NOT NULL AND m.longitude IS NOT NULL`,
  ];
  if (body.bounds) conditions.push(boundsCondition(body.bounds));
  if (settings) {
    const { impossible, ...figures } = referralBounds(settings);
    conditions.push(impossible ? sql`false` : referralFigureCondition(figures));
  }
  conditions.push(visitCondition(tenantId, body.visits));
  const where = sql.join(conditions, sql` AND `);
  const joins = sql`${fromClause(tenantId)} ${referralFigures(tenantId, settings)}`;
  const [counted, page] = await db.transaction().execute(async (trx) => {
    // As the partner search: the estimated cost of the tag and label probes crosses jit_above_cost,
    // and compiling costs more than the statement.
    await sql`SET LOCAL jit = off`.execute(trx);
    const count = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${joins} WHERE ${where}`.execute(trx);
    const rows = await sql<InstitutionRow & { visit_count: number | null }>`
      WITH page AS (
        SELECT p.id, p.referral_count, row_number() OVER () AS rn FROM (
          SELECT m.id, rf.referral_count FROM ${joins} WHERE ${where}
           ORDER BY rf.referral_count DESC NULLS LAST, m.name, m.id
           LIMIT ${body.per_page} OFFSET ${(body.page - 1) * body.per_page}) p)
      SELECT ${detailColumns(tenantId)}, page.referral_count, ${visitCount(tenantId, body.visits?.period)} AS visit_count
        FROM page JOIN ${fromClause(tenantId)} ON m.id = page.id ${accountJoin(tenantId)}
       ORDER BY page.rn`.execute(trx);
    return [count, rows] as const;
  });
  const total = counted.rows[0]?.n ?? 0;
  return {
    data: page.rows.map((r): SalesMapMedicalInstitution => {
      const mi = toMedicalInstitution(r);
      return {
        id: mi.id,
        name: mi.name,
        address: mi.address,
        // Never null: the WHERE keeps only institutions with both.
        latitude: mi.latitude!,
        longitude: mi.longitude!,
        running_status: mi.running_status,
        facility_type: mi.facility_type,
        tags: mi.tags,
        referral_count: mi.referral_count,
        last_visit_date: mi.last_visit_date,
        visit_count: body.visits?.period ? (r.visit_count ?? 0) : null,
      };
    }),
    meta: {
      total_count: total,
      page: body.page,
      per_page: body.per_page,
      total_pages: Math.ceil(total / body.per_page),
    },
  };
}
