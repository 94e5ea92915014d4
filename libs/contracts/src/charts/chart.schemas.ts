import { z } from 'zod';
import { endpoint } from '../core/endpoint.ts';
import type { FeatureKey } from '../core/features.ts';
import { Id, IdParams } from '../core/zod-helpers.ts';
import { MasterCode, Period } from '../core/refs.ts';
import { AnalysisAreaFilter, PeriodUnit } from '../reports/report.schemas.ts';

/** The filters every chart takes; a chart ignores those that do not apply to it. */
export const ChartBody = z.object({
  period: Period,
  comparison_period: Period.nullable().default(null),
  period_unit: PeriodUnit.default('month'),
  own_department_ids: z.array(Id).max(200).default([]),
  department_ids: z.array(MasterCode).max(200).default([]),
  facility_type_ids: z.array(MasterCode).max(100).default([]),
  medical_institution_ids: z.array(Id).max(10000).default([]),
  tag_ids: z.array(Id).max(100).default([]),
  user_ids: z.array(Id).max(200).default([]),
  visit: z.enum(['first_visit', 'return_visit', 'all']).default('all'),
  ...AnalysisAreaFilter,
});
export type ChartBody = z.infer<typeof ChartBody>;

/**
 * The visit charts' body (`/charts/visits*`): the chart body plus `communication_types`, the visit
 * types to count (an addition to the spec: issue 11 asks for a filter by type; empty means both).
 */
export const VisitChartBody = ChartBody.extend({
  communication_types: z
    .array(z.enum(['visit', 'new_visit']))
    .max(2)
    .default([]),
});
export type VisitChartBody = z.infer<typeof VisitChartBody>;

/** Group charts add the group's institutions to compare (the tenant must be a group). */
export const GroupChartBody = ChartBody.extend({
  group_medical_institution_ids: z.array(Id).max(100).default([]),
});
export type GroupChartBody = z.infer<typeof GroupChartBody>;

/** A chart: one label per point on the x axis, one series per line or bar group. */
export const ChartData = z.object({
  labels: z.array(z.string()),
  series: z.array(
    z.object({
      key: z.string(),
      name: z.string(),
      /** One value per label; null where there is no data (not 0). */
      values: z.array(z.number().nullable()),
    }),
  ),
});
export type ChartData = z.infer<typeof ChartData>;

type ChartSpec = { key: string; path: string; summary: string; feature: FeatureKey | null };

/** What every chart endpoint shares; the three kinds differ only in their path params and body. */
function chartContract(spec: ChartSpec) {
  return {
    id: `charts.${spec.key}`,
    area: 'charts',
    method: 'POST',
    path: spec.path,
    service: 'query',
    summary: spec.summary,
    response: ChartData,
    successStatus: 200,
    feature: spec.feature,
    served: true,
  } as const;
}

function chart(spec: ChartSpec) {
  return endpoint({ ...chartContract(spec), body: ChartBody });
}

function visitChart(spec: ChartSpec) {
  return endpoint({ ...chartContract(spec), body: VisitChartBody });
}

function groupChart(spec: ChartSpec) {
  return endpoint({ ...chartContract(spec), body: GroupChartBody });
}

function institutionChart(spec: ChartSpec) {
  return endpoint({ ...chartContract(spec), params: IdParams, body: ChartBody });
}

export const chartEndpoints = {
  bothReferralsComparison: chart({
    key: 'bothReferralsComparison',
    path: '/charts/both_referrals/comparison',
    summary: '紹介・逆紹介の比較',
    feature: 'reverse_referrals',
  }),
  medicalInstitutionReferrals: endpoint({
    ...institutionChart({
      key: 'medicalInstitutionReferrals',
      path: '/charts/medical_institutions/{id}/referrals',
      summary: '医療機関の紹介件数推移',
      feature: 'medical_institutions_search',
    }),
  }),
  medicalInstitutionReferralDepartments: institutionChart({
    key: 'medicalInstitutionReferralDepartments',
    path: '/charts/medical_institutions/{id}/referrals/departments',
    summary: '医療機関の診療科別紹介件数',
    feature: 'medical_institutions_search',
  }),
  referrals: chart({ key: 'referrals', path: '/charts/referrals', summary: '紹介件数推移', feature: null }),
  referralsComparison: chart({
    key: 'referralsComparison',
    path: '/charts/referrals/comparison',
    summary: '紹介件数の期間比較',
    feature: null,
  }),
  referralsComparisonAnnual: chart({
    key: 'referralsComparisonAnnual',
    path: '/charts/referrals/comparison/annual',
    summary: '紹介件数の年度比較',
    feature: null,
  }),
  referralsComparisonMonthly: chart({
    key: 'referralsComparisonMonthly',
    path: '/charts/referrals/comparison/monthly',
    summary: '紹介件数の月別比較',
    feature: null,
  }),
  referralsComparisonDepartments: chart({
    key: 'referralsComparisonDepartments',
    path: '/charts/referrals/comparison/departments',
    summary: '紹介件数の診療科別比較',
    feature: null,
  }),
  reverseReferralsComparisonDepartments: chart({
    key: 'reverseReferralsComparisonDepartments',
    path: '/charts/reverse_referrals/comparison/departments',
    summary: '逆紹介件数の診療科別比較',
    feature: 'reverse_referrals',
  }),
  reverseReferralsComparisonMonthly: chart({
    key: 'reverseReferralsComparisonMonthly',
    path: '/charts/reverse_referrals/comparison/monthly',
    summary: '逆紹介件数の月別比較',
    feature: 'reverse_referrals',
  }),
  visits: visitChart({ key: 'visits', path: '/charts/visits', summary: '訪問件数推移', feature: 'communications' }),
  visitsDoctorInterviewRates: visitChart({
    key: 'visitsDoctorInterviewRates',
    path: '/charts/visits/doctor_interview_rates',
    summary: '訪問時の医師面談率',
    feature: 'communications',
  }),
  visitsNextActionRates: visitChart({
    key: 'visitsNextActionRates',
    path: '/charts/visits/next_action_rates',
    summary: '訪問後のネクストアクション設定率',
    feature: 'communications',
  }),
  groupReferrals: groupChart({
    key: 'groupReferrals',
    path: '/groups/charts/referrals',
    summary: 'グループ病院の紹介件数推移',
    feature: null,
  }),
  groupReferralsComparison: groupChart({
    key: 'groupReferralsComparison',
    path: '/groups/charts/referrals/comparison',
    summary: 'グループ病院の紹介件数比較',
    feature: null,
  }),
  groupReferralsComparisonAnnual: groupChart({
    key: 'groupReferralsComparisonAnnual',
    path: '/groups/charts/referrals/comparison/annual',
    summary: 'グループ病院の紹介件数の年度比較',
    feature: null,
  }),
  groupReferralsComparisonMonthly: groupChart({
    key: 'groupReferralsComparisonMonthly',
    path: '/groups/charts/referrals/comparison/monthly',
    summary: 'グループ病院の紹介件数の月別比較',
    feature: null,
  }),
};
