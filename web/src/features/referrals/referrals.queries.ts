import { queryOptions } from '@tanstack/react-query';
import type { z } from 'zod';
import type { ReferralInput, ReverseReferralInput } from '@renkei/contracts';
import type { ApiClient } from '../../api/api-client.ts';
import { useApiMutation } from '../../api/useApiMutation.ts';
import { staleFiguresAfter } from '../data-analysis/invalidate-figures.ts';

/** The current fiscal year (年度, from April) in Japan. */
export function currentFiscalYear(now = new Date()): number {
  const tokyo = new Date(now.getTime() + 9 * 3_600_000);
  return tokyo.getUTCMonth() >= 3 ? tokyo.getUTCFullYear() : tokyo.getUTCFullYear() - 1;
}

/** The last three fiscal years, this one included: what the institution's referral page charts. */
export function lastThreeFiscalYears(now = new Date()) {
  const fy = currentFiscalYear(now);
  return { from: `${fy - 2}-04-01`, to: `${fy + 1}-03-31` };
}

export const referralQueries = {
  all: ['referrals'] as const,
  monthly: (api: ApiClient, id: string, period: { from: string; to: string }) =>
    queryOptions({
      queryKey: [...referralQueries.all, 'monthly', id, period] as const,
      queryFn: ({ signal }) =>
        api.medicalInstitutionReferrals({ params: { id }, body: { period, period_unit: 'month' }, signal }),
    }),
  list: (api: ApiClient, id: string, page: number) =>
    queryOptions({
      queryKey: [...referralQueries.all, 'list', id, page] as const,
      queryFn: ({ signal }) =>
        api.listMedicalInstitutionReferrals({ params: { id }, query: { page, per_page: 20 }, signal }),
    }),
  reverseList: (api: ApiClient, id: string, page: number) =>
    queryOptions({
      queryKey: [...referralQueries.all, 'reverse-list', id, page] as const,
      queryFn: ({ signal }) =>
        api.listMedicalInstitutionReverseReferrals({ params: { id }, query: { page, per_page: 20 }, signal }),
    }),
};

export type ReferralInputValues = z.input<typeof ReferralInput>;
export type ReverseReferralInputValues = z.input<typeof ReverseReferralInput>;

export const useCreateReferral = () =>
  useApiMutation(
    (api, { id, body }: { id: string; body: ReferralInputValues }) =>
      api.createMedicalInstitutionReferral({ params: { id }, body }),
    [referralQueries.all, ...staleFiguresAfter('referral_data')],
  );

export const useCreateReverseReferral = () =>
  useApiMutation(
    (api, { id, body }: { id: string; body: ReverseReferralInputValues }) =>
      api.createMedicalInstitutionReverseReferral({ params: { id }, body }),
    [referralQueries.all, ...staleFiguresAfter('referral_data')],
  );

/** A hand entry corrected or withdrawn (imported rows have no such calls); the segments follow too. */
export const useUpdateReferral = () =>
  useApiMutation(
    (api, { institutionId, id, body }: { institutionId: string; id: string; body: ReferralInputValues }) =>
      api.updateMedicalInstitutionReferral({ params: { medical_institution_id: institutionId, id }, body }),
    [referralQueries.all, ['referral-settings'], ...staleFiguresAfter('referral_data')],
  );

export const useDeleteReferral = () =>
  useApiMutation(
    (api, { institutionId, id }: { institutionId: string; id: string }) =>
      api.deleteMedicalInstitutionReferral({ params: { medical_institution_id: institutionId, id } }),
    [referralQueries.all, ['referral-settings'], ...staleFiguresAfter('referral_data')],
  );

export const useUpdateReverseReferral = () =>
  useApiMutation(
    (api, { institutionId, id, body }: { institutionId: string; id: string; body: ReverseReferralInputValues }) =>
      api.updateMedicalInstitutionReverseReferral({ params: { medical_institution_id: institutionId, id }, body }),
    [referralQueries.all, ['referral-settings'], ...staleFiguresAfter('referral_data')],
  );

export const useDeleteReverseReferral = () =>
  useApiMutation(
    (api, { institutionId, id }: { institutionId: string; id: string }) =>
      api.deleteMedicalInstitutionReverseReferral({ params: { medical_institution_id: institutionId, id } }),
    [referralQueries.all, ['referral-settings'], ...staleFiguresAfter('referral_data')],
  );
