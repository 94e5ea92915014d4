import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import type { SegmentMapBody } from '@renkei/contracts';
import type { ApiClient } from '../../api/api-client.ts';

export const segmentMapQueries = {
  all: ['segment-map'] as const,
  map: (api: ApiClient, body: SegmentMapBody) =>
    queryOptions({
      queryKey: [...segmentMapQueries.all, 'map', body] as const,
      queryFn: ({ signal }) => api.segmentMap({ body, signal }),
      // A change of filter keeps the pins on screen while the next answer loads.
      placeholderData: keepPreviousData,
    }),
};
