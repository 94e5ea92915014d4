import { queryOptions } from '@tanstack/react-query';
import {
  isWithdrawableDataUpload,
  type DataUploadRecord,
  type DataUploadType,
  type InstitutionDismissalInput,
  type InstitutionMatchInput,
  type MappingProfilesInput,
} from '@renkei/contracts';
import type { ApiClient } from '../../api/api-client.ts';
import { useApiMutation } from '../../api/useApiMutation.ts';
import { isRunning, pollIntervalMs } from '../imports/imports.queries.ts';
import { staleFiguresAfter } from '../data-analysis/invalidate-figures.ts';
import { dataSyncStatusQueries } from '../data-sync-statuses/data-sync-statuses.queries.ts';

export const dataUploadQueries = {
  all: ['data-uploads'] as const,
  lists: () => [...dataUploadQueries.all, 'list'] as const,
  /**
   * Polled while an upload of the list runs or is being withdrawn (the record leaves the list when its
   * rows are all taken back), or until `awaitedId` (just uploaded) shows.
   */
  list: (
    api: ApiClient,
    params: { page: number; import_type?: DataUploadType | undefined },
    awaitedId: string | null = null,
  ) =>
    queryOptions({
      queryKey: [...dataUploadQueries.lists(), params] as const,
      queryFn: ({ signal }) => api.listDataUploads({ query: { ...params, per_page: 20 }, signal }),
      refetchInterval: (query) => {
        const rows = query.state.data?.data ?? [];
        const waiting = awaitedId !== null && !rows.some((r) => r.id === awaitedId);
        return waiting || rows.some((r) => isRunning(r) || r.withdrawing) ? pollIntervalMs : false;
      },
    }),
  profiles: (api: ApiClient) =>
    queryOptions({
      queryKey: [...dataUploadQueries.all, 'profiles'] as const,
      queryFn: ({ signal }) => api.listMappingProfiles({ signal }),
    }),
  /** What is left to match, or (`dismissed`) what owners set aside as not to be matched. */
  unmatched: (api: ApiClient, page: number, dismissed = false) =>
    queryOptions({
      queryKey: [...dataUploadQueries.all, 'unmatched', page, dismissed] as const,
      queryFn: ({ signal }) => api.listUnmatchedInstitutions({ query: { page, per_page: 20, dismissed }, signal }),
    }),
};

export const useSaveMappingProfiles = () =>
  useApiMutation((api, body: MappingProfilesInput) => api.replaceMappingProfiles({ body }), [dataUploadQueries.all]);

/** Also the referral screens' keys and the figures: the matched rows now count for the chosen institution. */
export const useMatchInstitution = () =>
  useApiMutation(
    (api, body: InstitutionMatchInput) => api.matchInstitution({ body }),
    [dataUploadQueries.all, ['referrals'], ...staleFiguresAfter('referral_data')],
  );

/** Only the unmatched lists change: the rows stay where they were counted (under no institution). */
export const useDismissUnmatchedInstitution = () =>
  useApiMutation(
    (api, body: InstitutionDismissalInput) => api.dismissUnmatchedInstitution({ body }),
    [[...dataUploadQueries.all, 'unmatched']],
  );

/**
 * The server refuses a withdrawal while the worker still reads the file (409), and of D and EF files
 * always; one already under way has nothing left to ask.
 */
export const canWithdraw = (record: Pick<DataUploadRecord, 'import_type' | 'status' | 'withdrawing'>): boolean =>
  isWithdrawableDataUpload(record.import_type) && !isRunning(record) && !record.withdrawing;

/** What lists uploads beside the history: read again after a withdrawal, or after one that was refused. */
export const uploadListKeys = [dataUploadQueries.all, dataSyncStatusQueries.all] as const;

/** What counts an upload's rows: the unmatched institutions beside the history, the referral screens, the figures. */
export const referralRowKeys = [
  [...dataUploadQueries.all, 'unmatched'],
  ['referrals'],
  ...staleFiguresAfter('referral_data'),
] as const;

/**
 * The worker takes the rows back after the request, over seconds or, for a very large file, minutes: the
 * record stays in the history as being withdrawn, and the figures count its rows, until it is done. The
 * history page reads `referralRowKeys` again once it no longer lists the record (`useWithdrawalEnded`).
 */
export const useWithdrawDataUpload = () =>
  useApiMutation(
    (api, id: string) => api.withdrawDataUpload({ params: { id } }),
    [...uploadListKeys, ['referrals'], ...staleFiguresAfter('referral_data')],
  );
