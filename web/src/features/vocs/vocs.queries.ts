import { queryOptions } from '@tanstack/react-query';
import { listVersion } from '@renkei/contracts/client';
import type { VocGroup, VocGroupsInput, VocInput, VocListQuery, VocPriority, VocStatus } from '@renkei/contracts';
import type { z } from 'zod';
import type { ApiClient } from '../../api/api-client.ts';
import { useApiMutation } from '../../api/useApiMutation.ts';

export type VocListParams = z.input<typeof VocListQuery>;
export type VocInputValues = z.input<typeof VocInput>;

export const vocStatusLabels: Record<VocStatus, string> = {
  NOT_STARTED: '未着手',
  IN_PROGRESS: '対応中',
  COMPLETED: '対応済',
  NO_ACTION_REQUIRED: '対応不要',
};
export const vocStatusColors: Record<VocStatus, string> = {
  NOT_STARTED: 'gray',
  IN_PROGRESS: 'blue',
  COMPLETED: 'teal',
  NO_ACTION_REQUIRED: 'dark',
};
export const vocPriorityLabels: Record<VocPriority, string> = { HIGH: '高', MIDDLE: '中', LOW: '低' };
export const vocPriorityColors: Record<VocPriority, string> = { HIGH: 'red', MIDDLE: 'yellow', LOW: 'gray' };

export const vocQueries = {
  all: ['vocs'] as const,
  list: (api: ApiClient, params: VocListParams) =>
    queryOptions({
      queryKey: [...vocQueries.all, 'list', params] as const,
      queryFn: ({ signal }) => api.listVocs({ query: params, signal }),
    }),
  groups: (api: ApiClient) =>
    queryOptions({
      queryKey: [...vocQueries.all, 'groups'] as const,
      queryFn: ({ signal }) => api.listVocGroups({ signal }),
    }),
};

// Communications show their VOCs, so every VOC write refreshes them too.
const changed = [vocQueries.all, ['communications']] as const;

export const useCreateVoc = () =>
  useApiMutation(
    (api, { body, idempotencyKey }: { body: VocInputValues; idempotencyKey?: string }) =>
      api.createVoc({ body, ...(idempotencyKey ? { idempotencyKey } : {}) }),
    changed,
  );

export const useUpdateVoc = () =>
  useApiMutation(
    (api, { id, version, body }: { id: string; version: number; body: VocInputValues }) =>
      api.updateVoc({ params: { id }, body, ifMatch: version }),
    changed,
  );

export const useDeleteVoc = () =>
  useApiMutation(
    (api, { id, version }: { id: string; version: number }) => api.deleteVoc({ params: { id }, ifMatch: version }),
    changed,
  );

/** Saves the whole list, based on the list shown (`shown`): another owner's change meanwhile is a 409. */
export const useReplaceVocGroups = () =>
  useApiMutation(
    (api, { body, shown }: { body: z.input<typeof VocGroupsInput>; shown: VocGroup[] }) =>
      api.replaceVocGroups({ body, ifMatch: listVersion(shown) }),
    [vocQueries.all],
  );
