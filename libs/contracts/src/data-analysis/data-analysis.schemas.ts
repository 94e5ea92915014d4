import { z } from 'zod';
import { endpoint } from '../core/endpoint.ts';
import { Id } from '../core/zod-helpers.ts';
import { MasterCode, MedicalInstitutionRef, Period } from '../core/refs.ts';
import { CommunicationType } from '../labels/label.schemas.ts';
import { AnalysisAreaFilter } from '../reports/report.schemas.ts';

export const RankingBody = z.object({
  period: Period,
  own_department_ids: z.array(Id).max(200).default([]),
  facility_type_ids: z.array(MasterCode).max(100).default([]),
  tag_ids: z.array(Id).max(100).default([]),
  limit: z.number().int().min(1).max(500, '順位は500位まで表示できます').default(50),
  ...AnalysisAreaFilter,
});
export type RankingBody = z.infer<typeof RankingBody>;

export const RankingResult = z.object({
  /** Column labels of `values` (months or fiscal years); empty for a total-count ranking. */
  labels: z.array(z.string()),
  data: z.array(
    z.object({
      rank: z.number().int(),
      medical_institution: MedicalInstitutionRef,
      total: z.number(),
      values: z.array(z.number().nullable()),
    }),
  ),
});
export type RankingResult = z.infer<typeof RankingResult>;

export const BothReferralsRankingResult = z.object({
  labels: z.array(z.string()),
  data: z.array(
    z.object({
      rank: z.number().int(),
      medical_institution: MedicalInstitutionRef,
      referral_total: z.number().int(),
      reverse_referral_total: z.number().int(),
      referral_values: z.array(z.number().int().nullable()),
      reverse_referral_values: z.array(z.number().int().nullable()),
    }),
  ),
});

/** Did visiting help? Referrals before and after the communications of the period. */
export const EffectivenessBody = z.object({
  period: Period,
  comparison_period: Period,
  communication_types: z.array(CommunicationType).default(['visit']),
  user_ids: z.array(Id).max(200).default([]),
  own_department_ids: z.array(Id).max(200).default([]),
  // The institutions compared, contacted and control alike, as the page's other panels filter them: facility
  // types and tags (an addition to the spec) and the area.
  facility_type_ids: z.array(MasterCode).max(100).default([]),
  tag_ids: z.array(Id).max(100).default([]),
  ...AnalysisAreaFilter,
});
export type EffectivenessBody = z.infer<typeof EffectivenessBody>;

export const EffectivenessResult = z.object({
  data: z.array(
    z.object({
      medical_institution: MedicalInstitutionRef,
      communication_count: z.number().int(),
      referral_count: z.number().int(),
      comparison_referral_count: z.number().int(),
      rate_of_referral_change: z.number().nullable(),
    }),
  ),
  summary: z.object({
    communicated_institution_count: z.number().int(),
    referral_count: z.number().int(),
    comparison_referral_count: z.number().int(),
    non_communicated_referral_change_rate: z.number().nullable(),
    communicated_referral_change_rate: z.number().nullable(),
  }),
});

/** The first and last date a kind of the tenant's data holds; null before its first row. */
const CoveredDays = z.object({ from: z.string(), to: z.string() }).nullable();

export const DataCoverage = z.object({
  referrals: CoveredDays,
  reverse_referrals: CoveredDays,
});
export type DataCoverage = z.infer<typeof DataCoverage>;

const d = { area: 'data-analysis', service: 'query', feature: 'data_analysis', served: true } as const;

export const dataAnalysisEndpoints = {
  dataCoverage: endpoint({
    ...d,
    id: 'dataAnalysis.dataCoverage',
    method: 'GET',
    path: '/data_analysis/data_coverage',
    // Addition to the spec: this 年度 to date ends where the uploaded data ends (an export runs up to
    // yesterday or the last month end), or the comparison holds days the current period cannot have yet.
    summary: '紹介・逆紹介データのある期間（独自追加）',
    response: DataCoverage,
    successStatus: 200,
  }),
  effectivenessVerification: endpoint({
    ...d,
    id: 'dataAnalysis.effectivenessVerification',
    method: 'POST',
    path: '/data_analysis/effectiveness_verification/communications',
    summary: '活動の効果検証',
    body: EffectivenessBody,
    response: EffectivenessResult,
    successStatus: 200,
  }),
  bothReferralsMonthlyRanking: endpoint({
    ...d,
    id: 'dataAnalysis.bothReferralsMonthlyRanking',
    method: 'POST',
    path: '/data_analysis/ranking/both_referrals/monthly',
    summary: '紹介・逆紹介の月別ランキング',
    body: RankingBody,
    response: BothReferralsRankingResult,
    successStatus: 200,
  }),
  referralAnnualRanking: endpoint({
    ...d,
    id: 'dataAnalysis.referralAnnualRanking',
    method: 'POST',
    path: '/data_analysis/ranking/referral/annual',
    summary: '紹介件数の年度別ランキング',
    body: RankingBody,
    response: RankingResult,
    successStatus: 200,
  }),
  referralMonthlyRanking: endpoint({
    ...d,
    id: 'dataAnalysis.referralMonthlyRanking',
    method: 'POST',
    path: '/data_analysis/ranking/referral/monthly',
    summary: '紹介件数の月別ランキング',
    body: RankingBody,
    response: RankingResult,
    successStatus: 200,
  }),
  referralTotalCountRanking: endpoint({
    ...d,
    id: 'dataAnalysis.referralTotalCountRanking',
    method: 'POST',
    path: '/data_analysis/ranking/referral/total_count',
    summary: '紹介件数の合計ランキング',
    body: RankingBody,
    response: RankingResult,
    successStatus: 200,
  }),
};
