import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import type { TagInput } from '@renkei/contracts';
import type { z } from 'zod';
import type { ApiClient } from '../../api/api-client.ts';
import { useServices } from '../../app/services-context.tsx';

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

function useInvalidateTags() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: tagQueries.all });
}

export function useCreateTag() {
  const { api } = useServices();
  const invalidate = useInvalidateTags();
  return useMutation({
    mutationFn: (body: TagInputValues) => api.createTag({ body }),
    onSuccess: invalidate,
    meta: { handlesErrors: true },
  });
}

export function useUpdateTag() {
  const { api } = useServices();
  const invalidate = useInvalidateTags();
  return useMutation({
    mutationFn: ({ id, version, body }: { id: string; version: number; body: TagInputValues }) =>
      api.updateTag({ params: { id }, body, ifMatch: version }),
    onSuccess: invalidate,
    meta: { handlesErrors: true },
  });
}

export function useDeleteTag() {
  const { api } = useServices();
  const invalidate = useInvalidateTags();
  return useMutation({
    mutationFn: ({ id, version }: { id: string; version: number }) =>
      api.deleteTag({ params: { id }, ifMatch: version }),
    onSuccess: invalidate,
    meta: { handlesErrors: true },
  });
}
