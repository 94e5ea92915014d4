import { sql, type Kysely } from 'kysely';
import type {
  MedicalInstitutionSegment,
  ReferralAdmissionPeriod,
  ReferralAdmissionSegment,
  SegmentationSetting,
} from '@renkei/contracts';
import { defaultReferralAdmissionPeriodDays, segmentationSettingId, type SegmentDefinition } from '@renkei/domain';
import type { ReadModels } from '@renkei/read-models';

const noDepartment = '00000000-0000-0000-0000-000000000000';

interface Stored {
  admission_period_days: number | null;
  period_version: number;
  period_updated_at: string | null;
  rest_segment_label: string | null;
  excluded_own_department_ids: string[] | null;
  segments: SegmentDefinition[] | null;
  segmentation_version: number;
  segmentation_updated_at: string | null;
}

async function stored(db: Kysely<ReadModels>, tenantId: string): Promise<Stored | undefined> {
  return db
    .selectFrom('rm.referral_settings')
    .select([
      'admission_period_days',
      'period_version',
      sql<string | null>`to_char(period_updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`.as(
        'period_updated_at',
      ),
      'rest_segment_label',
      'excluded_own_department_ids',
      'segments',
      'segmentation_version',
      sql<string | null>`to_char(segmentation_updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`.as(
        'segmentation_updated_at',
      ),
    ])
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
}

/** The tenant's segmentation setting (never saved: no segments, every institution in その他) and its version. */
export async function segmentationSetting(
  db: Kysely<ReadModels>,
  tenantId: string,
): Promise<{ setting: SegmentationSetting; version: number }> {
  const row = await stored(db, tenantId);
  const saved = row && row.segmentation_version >= 0;
  return {
    setting: {
      id: segmentationSettingId(tenantId),
      rest_segment_label: (saved && row.rest_segment_label) || 'その他',
      excluded_own_department_ids: (saved && row.excluded_own_department_ids) || [],
      segments: (saved && row.segments) || [],
      updated_at: saved ? row.segmentation_updated_at : null,
      version: saved ? row.segmentation_version : null,
    },
    version: saved ? row.segmentation_version : -1,
  };
}

export async function admissionPeriod(
  db: Kysely<ReadModels>,
  tenantId: string,
): Promise<{ period: ReferralAdmissionPeriod; version: number }> {
  const row = await stored(db, tenantId);
  return {
    period: {
      max_referral_hospital_admission_period: row?.admission_period_days ?? defaultReferralAdmissionPeriodDays,
      updated_at: row?.period_updated_at ?? null,
    },
    version: row?.period_version ?? -1,
  };
}

/**
 * The segments as bounds: a segment takes the institutions that reach its lower bounds and no segment
 * of a higher priority, so its upper bounds are not a fixed number and are left null.
 */
export function admissionSegments(setting: SegmentationSetting): ReferralAdmissionSegment[] {
  return setting.segments.map((s) => ({
    id: s.id,
    name: s.label,
    referral_count_min: s.referral_count_more_equal,
    referral_count_max: null,
    admission_rate_min: s.referral_admission_rate_more_equal,
    admission_rate_max: null,
  }));
}

/** The first segment by priority whose bounds the figures reach, else the rest. */
export function segmentOf(
  setting: SegmentationSetting,
  referralCount: number,
  admissionRate: number | null,
): { segment_id: string | null; segment_label: string } {
  const hit = [...setting.segments]
    .sort((a, b) => a.priority - b.priority)
    .find(
      (s) =>
        (s.referral_count_more_equal === null || referralCount >= s.referral_count_more_equal) &&
        (s.referral_admission_rate_more_equal === null ||
          (admissionRate !== null && admissionRate >= s.referral_admission_rate_more_equal)),
    );
  return hit
    ? { segment_id: hit.id, segment_label: hit.label }
    : { segment_id: null, segment_label: setting.rest_segment_label };
}

/** The twelve whole months before the month of `today` (docs/decisions.md, Referral segments). */
function segmentPeriod(today: Date): { from: string; to: string } {
  const y = today.getUTCFullYear();
  const m = today.getUTCMonth();
  const iso = (d: Date) => d.toISOString().slice(0, 10);
  return { from: iso(new Date(Date.UTC(y, m - 12, 1))), to: iso(new Date(Date.UTC(y, m, 1))) };
}

/**
 * The institution's segment over the period, for all its referrals (own_department_id null) and for
 * each own department it referred to, from the monthly rollups; the setting's excluded departments
 * count in neither. The admission rate is the percent of the period's referrals followed by a stay.
 */
export async function institutionSegments(
  db: Kysely<ReadModels>,
  tenantId: string,
  institutionId: string,
  setting: SegmentationSetting,
  today: Date,
): Promise<MedicalInstitutionSegment[]> {
  const { from, to } = segmentPeriod(today);
  const excluded = setting.excluded_own_department_ids;
  const rows = await db
    .selectFrom('rm.referral_monthly_rollups')
    .select([
      'own_department_id',
      sql<number>`sum(referral_count)::int`.as('referrals'),
      sql<number>`sum(admitted_count)::int`.as('admitted'),
    ])
    .where('tenant_id', '=', tenantId)
    .where('medical_institution_id', '=', institutionId)
    .where(sql<boolean>`month >= ${from}::date`)
    .where(sql<boolean>`month < ${to}::date`)
    .$if(excluded.length > 0, (q) => q.where('own_department_id', 'not in', excluded))
    .groupBy('own_department_id')
    .having(sql<boolean>`sum(referral_count) > 0`)
    .orderBy('own_department_id')
    .execute();
  const entry = (ownDepartmentId: string | null, referrals: number, admitted: number): MedicalInstitutionSegment => {
    const rate = referrals > 0 ? Math.round((admitted / referrals) * 1000) / 10 : null;
    return {
      own_department_id: ownDepartmentId,
      ...segmentOf(setting, referrals, rate),
      referral_count: referrals,
      referral_admission_rate: rate,
    };
  };
  const total = rows.reduce((a, r) => ({ referrals: a.referrals + r.referrals, admitted: a.admitted + r.admitted }), {
    referrals: 0,
    admitted: 0,
  });
  return [
    entry(null, total.referrals, total.admitted),
    ...rows
      .filter((r) => r.own_department_id !== noDepartment)
      .map((r) => entry(r.own_department_id, r.referrals, r.admitted)),
  ];
}
