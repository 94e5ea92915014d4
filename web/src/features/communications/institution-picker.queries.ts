import { queryOptions } from '@tanstack/react-query';
import type { ApiClient } from '../../api/api-client.ts';

/** A position, rounded so that a few metres of GPS jitter ask the same question (and hit the cache). */
export interface PickerPosition {
  latitude: number;
  longitude: number;
}

const rounded = (v: number) => Math.round(v * 10_000) / 10_000;

/**
 * The institution picker's reads. Under the communications key on purpose: saving a record invalidates
 * `['communications']`, so the institution just logged is under 最近の医療機関 the next time the form opens.
 */
export const institutionPickerQueries = {
  all: ['communications', 'institution-picker'] as const,
  recent: (api: ApiClient) =>
    queryOptions({
      queryKey: [...institutionPickerQueries.all, 'recent'] as const,
      queryFn: ({ signal }) => api.listRecentCommunicationInstitutions({ signal }),
    }),
  nearby: (api: ApiClient, position: PickerPosition) => {
    const query = { latitude: rounded(position.latitude), longitude: rounded(position.longitude) };
    return queryOptions({
      queryKey: [...institutionPickerQueries.all, 'nearby', query] as const,
      queryFn: ({ signal }) => api.listNearbyMedicalInstitutions({ query, signal }),
    });
  },
};
