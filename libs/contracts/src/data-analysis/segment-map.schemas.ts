import { z } from 'zod';
import { endpoint } from '../core/endpoint.ts';
import { Id } from '../core/zod-helpers.ts';
import { Period } from '../core/refs.ts';

/** 診療圏分析: the referring institutions of a period, each in its referral admission segment. */
export const SegmentMapBody = z.object({
  period: Period,
  /** Only referrals to these own departments; empty: all (less the setting's excluded departments). */
  own_department_ids: z.array(Id).max(200).default([]),
});
export type SegmentMapBody = z.infer<typeof SegmentMapBody>;

export const SegmentMapInstitution = z.object({
  id: Id,
  name: z.string(),
  address: z.string(),
  latitude: z.number(),
  longitude: z.number(),
  referral_count: z.number().int(),
  /** Percent of the period's referrals followed by a stay, one decimal. */
  referral_admission_rate: z.number().nullable(),
  /** null: the rest segment (no segment's bounds reached). */
  segment_id: Id.nullable(),
  segment_label: z.string(),
});
export type SegmentMapInstitution = z.infer<typeof SegmentMapInstitution>;

export const SegmentMapSegment = z.object({
  segment_id: Id.nullable(),
  label: z.string(),
  /** null for the rest segment, which comes last. */
  priority: z.number().int().nullable(),
  /** Institutions of `data` (those with a location) in the segment, and their referrals. */
  institution_count: z.number().int(),
  referral_count: z.number().int(),
});
export type SegmentMapSegment = z.infer<typeof SegmentMapSegment>;

export const SegmentMapResult = z.object({
  /** Every segment of the setting by priority, then the rest segment, each with its counts. */
  segments: z.array(SegmentMapSegment),
  /** Referring institutions of the period with a location, most referrals first. */
  data: z.array(SegmentMapInstitution),
  /** Referring institutions of the period left off the map for want of coordinates. */
  without_location_count: z.number().int(),
});
export type SegmentMapResult = z.infer<typeof SegmentMapResult>;

export const segmentMapEndpoints = {
  segmentMap: endpoint({
    area: 'data-analysis',
    service: 'query',
    feature: 'data_analysis',
    served: true,
    id: 'dataAnalysis.segmentMap',
    method: 'POST',
    path: '/data_analysis/segment_map',
    // Addition to the spec: no call of §7 answers the referring institutions with coordinates, figures
    // and segment for a period.
    summary: '診療圏分析の地図（独自追加）',
    body: SegmentMapBody,
    response: SegmentMapResult,
    successStatus: 200,
  }),
};
