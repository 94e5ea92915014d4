import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import type { ProfileInput } from '@renkei/contracts';
import type { z } from 'zod';
import type { ApiClient } from '../../api/api-client.ts';
import { useServices } from '../../app/services-context.tsx';
import { communicationQueries } from '../communications/communications.queries.ts';
import { currentUserQueries } from '../current-user/current-user.queries.ts';
import { visitChartQueries } from '../data-analysis/visit-charts.queries.ts';

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
      // The username is also the name in the header and in the staff pickers (cached for 5 minutes).
      await Promise.all(
        [currentUserQueries.all, communicationQueries.staffs(api).queryKey, visitChartQueries.staffs(api).queryKey].map(
          (queryKey) => queryClient.invalidateQueries({ queryKey }),
        ),
      );
    },
  });
}
