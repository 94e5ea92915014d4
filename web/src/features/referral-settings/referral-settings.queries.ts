import { queryOptions } from '@tanstack/react-query';
import type { z } from 'zod';
import type { ReferralAdmissionPeriodInput, SegmentationSettingInput } from '@renkei/contracts';
import type { ApiClient } from '../../api/api-client.ts';
import { useApiMutation } from '../../api/useApiMutation.ts';
import { staleFiguresAfter } from '../data-analysis/invalidate-figures.ts';

export const referralSettingQueries = {
  all: ['referral-settings'] as const,
  segmentation: (api: ApiClient) =>
    queryOptions({
      queryKey: [...referralSettingQueries.all, 'segmentation'] as const,
      queryFn: ({ signal }) => api.segmentationSetting({ signal }),
    }),
  period: (api: ApiClient) =>
    queryOptions({
      queryKey: [...referralSettingQueries.all, 'period'] as const,
      queryFn: ({ signal }) => api.referralAdmissionPeriod({ signal }),
    }),
  institutionSegments: (api: ApiClient, id: string) =>
    queryOptions({
      queryKey: [...referralSettingQueries.all, 'institution', id] as const,
      queryFn: ({ signal }) => api.getSegments({ params: { id }, signal }),
    }),
};

/** A save changes segments everywhere; a period change re-links stays, so the referral screens too. */
export const useSaveSegmentationSetting = () =>
  useApiMutation(
    (api, { body, version }: { body: z.input<typeof SegmentationSettingInput>; version: number | null }) =>
      // The version the card was loaded at (none before the first save): a later save by another owner is a 409.
      api.updateSegmentationSetting({ body, ...(version === null ? {} : { ifMatch: `"${version}"` }) }),
    [referralSettingQueries.all],
  );

export const useSaveAdmissionPeriod = () =>
  useApiMutation(
    (api, body: ReferralAdmissionPeriodInput) => api.updateReferralAdmissionPeriod({ body }),
    // The period re-links stays to referrals: admissions and operations on the top page change with it.
    [referralSettingQueries.all, ['referrals'], ...staleFiguresAfter('referral_data')],
  );
