import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import type { ProfileInput } from '@renkei/contracts';
import type { z } from 'zod';
import type { ApiClient } from '../../api/api-client.ts';
import { useServices } from '../../app/services-context.tsx';
import { currentUserQueries } from '../current-user/current-user.queries.ts';

export const profileQueries = {
  all: ['profile'] as const,
  detail: (api: ApiClient) =>
    queryOptions({
      queryKey: [...profileQueries.all, 'me'] as const,
      queryFn: ({ signal }) => api.getProfile({ signal }),
    }),
};

export function useUpdateProfile() {
  const { api } = useServices();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: z.input<typeof ProfileInput>) => api.updateProfile({ body }),
    onSuccess: async (profile) => {
      queryClient.setQueryData(profileQueries.detail(api).queryKey, profile);
      // The username is also the name in the header.
      await queryClient.invalidateQueries({ queryKey: currentUserQueries.all });
    },
  });
}
