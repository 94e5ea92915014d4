import { z } from 'zod';
import { eventParser } from '../event-union.ts';
import { uuidV5 } from '../uuid-v5.ts';

/**
 * Owners' referral settings, one stream per tenant and setting so a save of one never conflicts with
 * the other's version: `referral_admission_period-<tenant id>` and `segmentation_setting-<tenant id>`.
 */
export const referralAdmissionPeriodAggregate = 'referral_admission_period';
export const segmentationSettingAggregate = 'segmentation_setting';
/** The worker's re-link slices after a period change: `referral_stays_relink-<tenant id>`. */
export const referralStaysRelinkAggregate = 'referral_stays_relink';

/** The setting's id in answers: one setting per tenant, so derived from the tenant. */
export const segmentationSettingId = (tenantId: string) => uuidV5('8f3a6c1e2d4b4e7a9c0b1d2e3f4a5b6c', tenantId);

/** Days after a referral within which a stay of the same patient follows it (spec §3 tenant field). */
export const defaultReferralAdmissionPeriodDays = 90;

export const ReferralAdmissionPeriodChanged = z.object({ days: z.number().int().min(1) });
export type ReferralAdmissionPeriodChanged = z.infer<typeof ReferralAdmissionPeriodChanged>;

/**
 * One slice of the re-link that follows a period change: the stays of the tenant's patients whose key
 * hashes to `bucket` (of `buckets`) follow the tenant's current period. The worker appends the slices
 * one at a time, each after the projection has applied the one before, so a large tenant's re-link is
 * many short transactions instead of one long one.
 */
export const ReferralStaysRelinkRequested = z.object({
  change_id: z.uuid(),
  bucket: z.number().int().min(0),
  buckets: z.number().int().min(1),
});
export type ReferralStaysRelinkRequested = z.infer<typeof ReferralStaysRelinkRequested>;

/**
 * The re-link's end: the months its slices left to sum (each slice notes the months of the referrals
 * its stays were and are linked to, and the worker's rollup slices sum them, as an import's) are summed.
 */
export const ReferralStaysRelinkCompleted = z.object({ change_id: z.uuid() });
export type ReferralStaysRelinkCompleted = z.infer<typeof ReferralStaysRelinkCompleted>;

export const SegmentDefinition = z.object({
  id: z.uuid(),
  label: z.string(),
  priority: z.number().int(),
  referral_count_more_equal: z.number().int().nullable(),
  /** Percent (0–100) of the period's referrals followed by a stay. */
  referral_admission_rate_more_equal: z.number().nullable(),
});
export type SegmentDefinition = z.infer<typeof SegmentDefinition>;

export const SegmentationSettingReplaced = z.object({
  rest_segment_label: z.string(),
  excluded_own_department_ids: z.array(z.uuid()),
  segments: z.array(SegmentDefinition),
});
export type SegmentationSettingReplaced = z.infer<typeof SegmentationSettingReplaced>;

export const referralAdmissionPeriodEventSchemas = {
  ReferralAdmissionPeriodChanged,
  ReferralStaysRelinkRequested,
  ReferralStaysRelinkCompleted,
} as const;
export const segmentationSettingEventSchemas = { SegmentationSettingReplaced } as const;

export const parseReferralAdmissionPeriodEvent = eventParser(
  referralAdmissionPeriodAggregate,
  referralAdmissionPeriodEventSchemas,
);
export const parseSegmentationSettingEvent = eventParser(segmentationSettingAggregate, segmentationSettingEventSchemas);
