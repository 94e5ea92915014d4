import { queryOptions } from '@tanstack/react-query';
import type { TagInput } from '@renkei/contracts';
import type { z } from 'zod';
import type { ApiClient } from '../../api/api-client.ts';
import { useApiMutation } from '../../api/useApiMutation.ts';

export interface TagListParams {
  page: number;
  per_page: number;
  sort: 'asc' | 'desc';
}

/** One key factory for the tags feature; its mutations invalidate only these keys. */
export const tagQueries = {
  all: ['tags'] as const,
  lists: () => [...tagQueries.all, 'list'] as const,
  list: (api: ApiClient, params: TagListParams) =>
    queryOptions({
      queryKey: [...tagQueries.lists(), params] as const,
      queryFn: ({ signal }) => api.listTags({ query: params, signal }),
    }),
  groups: (api: ApiClient) =>
    queryOptions({
      queryKey: [...tagQueries.all, 'groups'] as const,
      queryFn: ({ signal }) => api.listTagGroups({ signal }),
    }),
};

export type TagInputValues = z.input<typeof TagInput>;

export const useCreateTag = () =>
  useApiMutation((api, body: TagInputValues) => api.createTag({ body }), [tagQueries.all]);

export const useUpdateTag = () =>
  useApiMutation(
    (api, { id, version, body }: { id: string; version: number; body: TagInputValues }) =>
      api.updateTag({ params: { id }, body, ifMatch: version }),
    [tagQueries.all],
  );

export const useDeleteTag = () =>
  useApiMutation(
    (api, { id, version }: { id: string; version: number }) => api.deleteTag({ params: { id }, ifMatch: version }),
    [tagQueries.all],
  );
