import { sql, type Kysely } from 'kysely';
import type { SegmentMapBody, SegmentMapInstitution, SegmentMapResult, SegmentMapSegment } from '@renkei/contracts';
import type { ReadModels } from '@renkei/read-models';
import { segmentationSetting, segmentOf } from '../segments/segments.queries.ts';

interface FigureRow {
  id: string;
  name: string;
  address: string;
  latitude: number | null;
  longitude: number | null;
  referrals: number;
  admitted: number;
}

/**
 * 診療圏分析: every institution that referred to the tenant in the period (the whole months it touches,
 * as the monthly rollups count), with its admission rate and its segment by the same rule as an
 * institution's segments (`segmentOf`), over the chosen own departments less the setting's excluded
 * ones. Institutions without coordinates cannot be drawn: they are only counted.
 */
export async function segmentMap(
  db: Kysely<ReadModels>,
  tenantId: string,
  body: SegmentMapBody,
): Promise<SegmentMapResult> {
  const { setting } = await segmentationSetting(db, tenantId);
  const excluded = setting.excluded_own_department_ids;
  const chosen = body.own_department_ids;
  const { rows } = await sql<FigureRow>`
    SELECT m.id, m.name, coalesce(m.address, '') AS address, m.latitude, m.longitude, f.referrals, f.admitted
      FROM (SELECT r.medical_institution_id, sum(r.referral_count)::int AS referrals,
                   sum(r.admitted_count)::int AS admitted
              FROM rm.referral_monthly_rollups r
             WHERE r.tenant_id = ${tenantId}
               AND r.month >= date_trunc('month', ${body.period.from}::date) AND r.month <= ${body.period.to}::date
               ${chosen.length > 0 ? sql`AND r.own_department_id = ANY(${sql.val(chosen)}::uuid[])` : sql``}
               ${excluded.length > 0 ? sql`AND NOT (r.own_department_id = ANY(${sql.val(excluded)}::uuid[]))` : sql``}
             GROUP BY r.medical_institution_id
            HAVING sum(r.referral_count) > 0) f
      JOIN ref.medical_institutions m ON m.id = f.medical_institution_id
     ORDER BY f.referrals DESC, m.name, m.id`.execute(db);

  const data: SegmentMapInstitution[] = [];
  let withoutLocation = 0;
  for (const r of rows) {
    if (r.latitude === null || r.longitude === null) {
      withoutLocation += 1;
      continue;
    }
    const rate = Math.round((r.admitted / r.referrals) * 1000) / 10;
    data.push({
      id: r.id,
      name: r.name,
      address: r.address,
      latitude: r.latitude,
      longitude: r.longitude,
      referral_count: r.referrals,
      referral_admission_rate: rate,
      ...segmentOf(setting, r.referrals, rate),
    });
  }

  const tally = (segmentId: string | null) => {
    const members = data.filter((d) => d.segment_id === segmentId);
    return { institution_count: members.length, referral_count: members.reduce((a, d) => a + d.referral_count, 0) };
  };
  const segments: SegmentMapSegment[] = [
    ...[...setting.segments]
      .sort((a, b) => a.priority - b.priority)
      .map((s) => ({ segment_id: s.id, label: s.label, priority: s.priority, ...tally(s.id) })),
    { segment_id: null, label: setting.rest_segment_label, priority: null, ...tally(null) },
  ];
  return { segments, data, without_location_count: withoutLocation };
}
