import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { ChartData, VisitChartBody } from '@renkei/contracts';
import { bucketKey, bucketsOf, splitForRollups, type DateRange } from '@renkei/domain';
import type { ReadModels } from '@renkei/read-models';
import { institutionConditions } from './analysis.queries.ts';

/** Per bucket: visits, visits where a doctor was met, visits with a task, and visits per type. */
interface VisitSums {
  visits: number;
  doctorInterviews: number;
  nextActions: number;
  visit: number;
  newVisit: number;
}
interface Row {
  d: string;
  communication_type: string;
  visits: number;
  doctors: number;
  actions: number;
}

const visitTypes: VisitChartBody['communication_types'] = ['visit', 'new_visit'];

const empty = (): VisitSums => ({ visits: 0, doctorInterviews: 0, nextActions: 0, visit: 0, newVisit: 0 });

/** Whether the body filters on something of the institution (then the per-visit rows answer). */
const institutionLevel = (b: VisitChartBody) =>
  b.medical_institution_ids.length + b.tag_ids.length + b.facility_type_ids.length > 0 ||
  (b.prefectures?.length ?? 0) + (b.cities?.length ?? 0) > 0;

/**
 * The period's visit counts per bucket of its unit (buckets clipped to the period, exact to the day).
 * Without an institution filter, whole months come from the monthly rollups and the days at the ends
 * (every day, for weeks) from the daily rollups (both per tenant when no staff filter is given); with one, from the projection's per-visit rows joined
 * to the institution filters. Never from `rm.communications`.
 */
async function visitSums(
  db: Kysely<ReadModels>,
  tenantId: string,
  body: VisitChartBody,
): Promise<{ labels: string[]; sums: VisitSums[] }> {
  const buckets = bucketsOf(body.period, body.period_unit);
  const rows = institutionLevel(body)
    ? await institutionRows(db, tenantId, body)
    : await rollupRows(db, tenantId, body, body.period_unit === 'week');
  const index = new Map(buckets.map((b, i) => [b.key, i]));
  const sums = buckets.map(empty);
  for (const r of rows) {
    const i = index.get(bucketKey(r.d, body.period_unit));
    if (i === undefined) continue;
    const s = sums[i]!;
    s.visits += r.visits;
    s.doctorInterviews += r.doctors;
    s.nextActions += r.actions;
    if (r.communication_type === 'visit') s.visit += r.visits;
    else s.newVisit += r.visits;
  }
  return { labels: buckets.map((b) => b.label), sums };
}

function staffAndType(body: VisitChartBody, alias: string): RawBuilder<unknown>[] {
  const parts: RawBuilder<unknown>[] = [];
  if (body.user_ids.length > 0)
    parts.push(sql`${sql.ref(`${alias}.user_id`)} = ANY(${sql.val(body.user_ids)}::uuid[])`);
  if (body.communication_types.length > 0)
    parts.push(sql`${sql.ref(`${alias}.communication_type`)} = ANY(${sql.val(body.communication_types)}::text[])`);
  return parts;
}

const and = (parts: RawBuilder<unknown>[]) => (parts.length === 0 ? sql`` : sql` AND ${sql.join(parts, sql` AND `)}`);

async function rollupRows(db: Kysely<ReadModels>, tenantId: string, body: VisitChartBody, daysOnly: boolean) {
  const { inner, edges } = daysOnly ? { inner: null, edges: [body.period] } : splitForRollups(body.period, 'month');
  const parts: RawBuilder<unknown>[] = [];
  // Without a staff filter the per-tenant rows answer: one per day (or month) and type, not one per staff member too.
  const allStaff = body.user_ids.length === 0;
  const monthly = allStaff ? sql`rm.visit_tenant_monthly_rollups` : sql`rm.visit_monthly_rollups`;
  if (inner)
    parts.push(sql`
      SELECT to_char(m.month, 'YYYY-MM-DD') AS d, m.communication_type, sum(m.visit_count)::int AS visits,
             sum(m.doctor_interview_count)::int AS doctors, sum(m.next_action_count)::int AS actions
        FROM ${monthly} m
       WHERE m.tenant_id = ${tenantId} AND m.month BETWEEN ${inner.from} AND ${inner.to}${and(staffAndType(body, 'm'))}
       GROUP BY 1, 2`);
  if (edges.length > 0) {
    const ranges = edges.map((e: DateRange) => sql`d.acted_date BETWEEN ${e.from} AND ${e.to}`);
    const daily = allStaff ? sql`rm.visit_tenant_daily_rollups` : sql`rm.visit_daily_rollups`;
    parts.push(sql`
      SELECT to_char(d.acted_date, 'YYYY-MM-DD') AS d, d.communication_type, sum(d.visit_count)::int AS visits,
             sum(d.doctor_interview_count)::int AS doctors, sum(d.next_action_count)::int AS actions
        FROM ${daily} d
       WHERE d.tenant_id = ${tenantId} AND (${sql.join(ranges, sql` OR `)})${and(staffAndType(body, 'd'))}
       GROUP BY 1, 2`);
  }
  const { rows } = await sql<Row>`${sql.join(parts, sql` UNION ALL `)}`.execute(db);
  return rows;
}

/**
 * A chart filtered by institution: whole months from the facility-type and prefecture rollups when
 * those are the only filters, the unit is a month or longer and the rollups were summed against the
 * master as it is now; the days at the period's ends and everything else from the per-visit rows.
 */
async function institutionRows(db: Kysely<ReadModels>, tenantId: string, body: VisitChartBody): Promise<Row[]> {
  const attributesOnly =
    body.user_ids.length + body.medical_institution_ids.length + body.tag_ids.length + (body.cities?.length ?? 0) ===
      0 && body.period_unit !== 'week';
  const { inner, edges } = splitForRollups(body.period, 'month');
  if (!attributesOnly || !inner) return perVisitRows(db, tenantId, body);
  const parts = [
    sql`a.communication_type = ANY(${sql.val(body.communication_types.length > 0 ? body.communication_types : visitTypes)}::text[])`,
  ];
  // The same ids as the master join takes (analysis.queries.ts, institutionConditions).
  if (body.facility_type_ids.length > 0)
    parts.push(
      sql`a.facility_type_id = ANY(${sql.val(body.facility_type_ids.filter((id) => /^-?(0|[1-9]\d{0,8})$/.test(id)).map(Number))}::int[])`,
    );
  if (body.prefectures?.length)
    parts.push(sql`a.prefecture_code = ANY(${sql.val(body.prefectures.map(Number))}::int[])`);
  // One statement says whether the rows were summed against the master as it is (no sync since) and,
  // if so, sums them: a separate check was one more round trip on every chart.
  const [months, ...ends] = await Promise.all([
    sql<Row & { ok: boolean }>`
      WITH basis AS (
        SELECT coalesce((SELECT b.master_runs = (SELECT count(*)::int FROM ref.sync_runs WHERE kind = 'medical_institutions')
                           FROM rm.visit_attribute_bases b WHERE b.tenant_id = ${tenantId}), false) AS ok)
      SELECT basis.ok, m.d, m.communication_type, m.visits, m.doctors, m.actions
        FROM basis
        LEFT JOIN LATERAL (
          SELECT to_char(a.month, 'YYYY-MM-DD') AS d, a.communication_type, sum(a.visit_count)::int AS visits,
                 sum(a.doctor_interview_count)::int AS doctors, sum(a.next_action_count)::int AS actions
            FROM rm.visit_attribute_monthly_rollups a
           WHERE basis.ok AND a.tenant_id = ${tenantId} AND a.month BETWEEN ${inner.from} AND ${inner.to}${and(parts)}
           GROUP BY 1, 2) m ON true`.execute(db),
    ...edges.map((period) => perVisitRows(db, tenantId, { ...body, period })),
  ]);
  if (!months.rows[0]?.ok) return perVisitRows(db, tenantId, body);
  return [...months.rows.filter((r) => r.d !== null), ...ends.flat()];
}

async function perVisitRows(db: Kysely<ReadModels>, tenantId: string, body: VisitChartBody) {
  // The type always named, so the covering (tenant, type, date) index serves the range index-only.
  const types = body.communication_types.length > 0 ? body.communication_types : visitTypes;
  const parts = staffAndType({ ...body, communication_types: types }, 's');
  if (body.medical_institution_ids.length > 0)
    parts.push(sql`s.medical_institution_id = ANY(${sql.val(body.medical_institution_ids)}::uuid[])`);
  parts.push(...institutionConditions(tenantId, body, sql`s.medical_institution_id`));
  // Grouped by the date itself and formatted per group: a text key per visit row cost more than the sums.
  const { rows } = await sql<Row>`
    SELECT to_char(g.acted_date, 'YYYY-MM-DD') AS d, g.communication_type, g.visits, g.doctors, g.actions
      FROM (SELECT s.acted_date, s.communication_type, count(*)::int AS visits,
                   count(*) FILTER (WHERE s.is_doctor_attended)::int AS doctors,
                   count(*) FILTER (WHERE s.has_next_action)::int AS actions
              FROM rm.visit_sources s
             WHERE s.tenant_id = ${tenantId} AND s.acted_date BETWEEN ${body.period.from} AND ${body.period.to}${and(parts)}
             GROUP BY 1, 2) g`.execute(db);
  return rows;
}

/** A share in percent to one decimal; null for a bucket without visits (nothing to divide). */
const percent = (part: number, whole: number): number | null =>
  whole === 0 ? null : Math.round((part * 1000) / whole) / 10;

/** `POST /charts/visits`: visits per bucket, in total and per type. */
export async function visitsChart(db: Kysely<ReadModels>, tenantId: string, body: VisitChartBody): Promise<ChartData> {
  const { labels, sums } = await visitSums(db, tenantId, body);
  return {
    labels,
    series: [
      { key: 'visits', name: '訪問件数', values: sums.map((s) => s.visits) },
      { key: 'visit', name: '訪問', values: sums.map((s) => s.visit) },
      { key: 'new_visit', name: '新規訪問', values: sums.map((s) => s.newVisit) },
    ],
  };
}

/** `POST /charts/visits/doctor_interview_rates`: the share of visits where a doctor was met. */
export async function doctorInterviewRatesChart(
  db: Kysely<ReadModels>,
  tenantId: string,
  body: VisitChartBody,
): Promise<ChartData> {
  const { labels, sums } = await visitSums(db, tenantId, body);
  return {
    labels,
    series: [
      {
        key: 'doctor_interview_rate',
        name: '医師面談率（%）',
        values: sums.map((s) => percent(s.doctorInterviews, s.visits)),
      },
      { key: 'doctor_interviews', name: '医師面談件数', values: sums.map((s) => s.doctorInterviews) },
      { key: 'visits', name: '訪問件数', values: sums.map((s) => s.visits) },
    ],
  };
}

/** `POST /charts/visits/next_action_rates`: the share of visits with a task (a next action). */
export async function nextActionRatesChart(
  db: Kysely<ReadModels>,
  tenantId: string,
  body: VisitChartBody,
): Promise<ChartData> {
  const { labels, sums } = await visitSums(db, tenantId, body);
  return {
    labels,
    series: [
      {
        key: 'next_action_rate',
        name: 'ネクストアクション設定率（%）',
        values: sums.map((s) => percent(s.nextActions, s.visits)),
      },
      { key: 'next_actions', name: 'ネクストアクション設定件数', values: sums.map((s) => s.nextActions) },
      { key: 'visits', name: '訪問件数', values: sums.map((s) => s.visits) },
    ],
  };
}
