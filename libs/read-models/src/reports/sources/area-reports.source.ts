import { sql, type Kysely } from 'kysely';
import { staticReportItems } from '@renkei/contracts';
import { prefectures } from '@renkei/institution-master';
import type { ReadModels } from '../../read-models.ts';
import { noCity, noPrefecture } from '../../shared/master-attributes.ts';
import type { ReportSource, ReportSourceRequest, ReportSourceRow } from '../engine/report-source.ts';
import { referralFacts, runFigureStatement } from '../engine/referral-figures.ts';

/** The referral figures of an area and what they are summed from (`first_visit` from `visit` below a month). */
const referralFigureKeys = [
  'referral_count',
  'first_visit_count',
  'hospital_admission_count',
  'operation_count',
  'reverse_referral_count',
  'referring_institution_count',
] as const;
type ReferralFigureKey = (typeof referralFigureKeys)[number];

/** The counts a rate is computed from (by the engine), loaded whenever the rate is asked. */
const rateCounts: Record<string, readonly ReferralFigureKey[]> = {
  hospital_admission_rate: ['hospital_admission_count', 'referral_count'],
  operation_rate: ['operation_count', 'referral_count'],
};

const prefectureName = new Map(prefectures.map((p) => [p.code, p.name]));

/** An area's row id: the two-digit prefecture code and the master's city, '' for either the master lacks. */
const areaId = (prefectureCode: number, city: string) =>
  `${prefectureCode === noPrefecture ? '' : String(prefectureCode).padStart(2, '0')}|${city === noCity ? '' : city}`;

interface AreaFigures {
  prefecture_code: number;
  city: string;
  set: 'p' | 'c';
  bucket: string;
}
type ReferralSums = AreaFigures & Record<ReferralFigureKey, number>;
type VisitSums = AreaFigures & { visit_count: number };

/**
 * エリアレポート: one row per (prefecture, city) of the institutions this tenant has referral figures or
 * visits with in the period or the comparison period, by the institution master's prefecture and city.
 * Institutions the master does not hold, or holds without prefecture and city, make up the row `|`.
 *
 * Referral figures are the per-institution rollups (whole months from `referral_monthly_rollups`, whole
 * Monday–Sunday segments from `referral_period_rollups`, stray days from `referral_daily_rollups`) joined
 * to the master: the per-institution rows, not the area rollups, because the distinct referring
 * institutions need the institution, and the area rollups are valid only while the master is unsynced.
 * Visits have no rollup by institution (the daily rollups are per staff member), so they are counted
 * from `visit_sources`, the visit-rollups projection's narrow row per visit, as the charts do when they
 * filter by institution.
 */
export const areaReportsSource: ReportSource = {
  kind: 'area_reports',
  reads: ['referrals', 'visit_rollups'],

  async items() {
    return [...staticReportItems.area_reports];
  },

  async load(db, request) {
    // Each on its own connection, at once.
    const [referrals, visits] = await Promise.all([referralSums(db, request), visitSums(db, request)]);
    const rows = new Map<string, ReportSourceRow & { code: number; city: string }>();
    const rowOf = (r: AreaFigures) => {
      const id = areaId(r.prefecture_code, r.city);
      let row = rows.get(id);
      if (!row) {
        row = { id, code: r.prefecture_code, city: r.city, values: {}, figures: {}, comparisonFigures: {} };
        rows.set(id, row);
      }
      return row;
    };
    const add = (row: ReportSourceRow, set: 'p' | 'c', key: string, bucket: string, value: number) => {
      if (value === 0) return;
      const figures = set === 'p' ? row.figures : row.comparisonFigures;
      const byBucket = (figures[key] ??= {});
      byBucket[bucket] = (byBucket[bucket] ?? 0) + value;
    };

    const wanted = new Set<ReferralFigureKey>();
    for (const key of request.itemKeys) {
      if ((referralFigureKeys as readonly string[]).includes(key)) wanted.add(key as ReferralFigureKey);
      for (const count of rateCounts[key] ?? []) wanted.add(count);
    }
    for (const r of referrals) {
      const row = rowOf(r);
      for (const key of wanted) add(row, r.set, key, r.bucket, r[key]);
    }
    const wantVisits = request.itemKeys.has('visit_count');
    for (const v of visits) {
      const row = rowOf(v);
      if (wantVisits) add(row, v.set, 'visit_count', v.bucket, v.visit_count);
    }

    const counts = request.itemKeys.has('institution_count') ? await institutionCounts(db, [...rows.values()]) : null;
    return [...rows.values()].map(({ code, city, ...row }) => {
      if (request.itemKeys.has('prefecture')) row.values.prefecture = prefectureName.get(code) ?? null;
      if (request.itemKeys.has('city')) row.values.city = city === noCity || city === '' ? null : city;
      if (counts) row.values.institution_count = counts.get(row.id) ?? 0;
      return row;
    });
  },
};

/**
 * The referral figures per area, set and bucket, in one statement over the pieces of every bucket (the
 * engine's `referralFacts`, shared with the institution and own-department reports): summed per
 * institution first (an institution refers in a bucket when its referral count there is above 0), then
 * per area of the master.
 */
async function referralSums(db: Kysely<ReadModels>, request: ReportSourceRequest): Promise<ReferralSums[]> {
  const facts = referralFacts(request);
  if (!facts) return [];
  const { rows } = await runFigureStatement(
    db,
    sql<ReferralSums>`
    WITH ${facts},
    institutions AS (
      SELECT set, bucket, medical_institution_id, sum(referral_count) AS referral_count,
             sum(first_visit_count) AS first_visit_count, sum(hospital_admission_count) AS hospital_admission_count,
             sum(operation_count) AS operation_count, sum(reverse_referral_count) AS reverse_referral_count
        FROM facts GROUP BY set, bucket, medical_institution_id)
    SELECT coalesce(m.prefecture_code::int, ${noPrefecture}) AS prefecture_code, coalesce(m.city, ${noCity}) AS city,
           i.set, i.bucket,
           sum(i.referral_count)::int AS referral_count, sum(i.first_visit_count)::int AS first_visit_count,
           sum(i.hospital_admission_count)::int AS hospital_admission_count,
           sum(i.operation_count)::int AS operation_count,
           sum(i.reverse_referral_count)::int AS reverse_referral_count,
           count(*) FILTER (WHERE i.referral_count > 0)::int AS referring_institution_count
      FROM institutions i
      LEFT JOIN ref.medical_institutions m ON m.id = i.medical_institution_id
     GROUP BY 1, 2, 3, 4
    HAVING sum(i.referral_count) > 0 OR sum(i.reverse_referral_count) > 0`,
  );
  return rows;
}

/** Visits (visit and new_visit) per area, set and bucket, in one statement over the buckets' days. */
async function visitSums(db: Kysely<ReadModels>, request: ReportSourceRequest): Promise<VisitSums[]> {
  const all = [
    ...request.buckets.map((b) => ({ set: 'p', ...b })),
    ...request.comparisonBuckets.map((b) => ({ set: 'c', ...b })),
  ];
  if (all.length === 0) return [];
  const { rows } = await runFigureStatement(
    db,
    sql<VisitSums>`
    SELECT coalesce(m.prefecture_code::int, ${noPrefecture}) AS prefecture_code, coalesce(m.city, ${noCity}) AS city,
           b.set, b.bucket, count(*)::int AS visit_count
      FROM unnest(${sql.val(all.map((b) => b.set))}::text[], ${sql.val(all.map((b) => b.key))}::text[],
                  ${sql.val(all.map((b) => b.from))}::date[], ${sql.val(all.map((b) => b.to))}::date[])
           AS b(set, bucket, from_day, to_day)
      JOIN rm.visit_sources v ON v.tenant_id = ${request.tenantId} AND v.acted_date BETWEEN b.from_day AND b.to_day
      LEFT JOIN ref.medical_institutions m ON m.id = v.medical_institution_id
     GROUP BY 1, 2, 3, 4`,
  );
  return rows;
}

/**
 * Institutions of the master per area of the rows (closed ones too: the master's count of the area).
 * The row `|` counts the master's institutions without prefecture and city.
 */
async function institutionCounts(
  db: Kysely<ReadModels>,
  areas: readonly { id: string; code: number; city: string }[],
): Promise<Map<string, number>> {
  if (areas.length === 0) return new Map();
  const { rows } = await sql<{ prefecture_code: number; city: string; n: number }>`
    SELECT coalesce(m.prefecture_code::int, ${noPrefecture}) AS prefecture_code, m.city, count(*)::int AS n
      FROM unnest(${sql.val(areas.map((a) => a.code))}::int[], ${sql.val(areas.map((a) => (a.city === noCity ? '' : a.city)))}::text[])
           AS a(prefecture_code, city)
      JOIN ref.medical_institutions m
        ON m.prefecture_code IS NOT DISTINCT FROM nullif(a.prefecture_code, ${noPrefecture})::smallint AND m.city = a.city
     GROUP BY 1, 2`.execute(db);
  return new Map(rows.map((r) => [areaId(r.prefecture_code, r.city), r.n]));
}
