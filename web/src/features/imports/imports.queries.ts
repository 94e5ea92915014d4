import { queryOptions } from '@tanstack/react-query';
import type { ImportRecord } from '@renkei/contracts';
import type { ApiClient } from '../../api/api-client.ts';

export function isRunning(record: Pick<ImportRecord, 'status'>): boolean {
  return record.status === 'waiting' || record.status === 'processing';
}

/** Share of the file's rows handled so far (0–100); unknown totals count as not started. */
export function progressOf(
  r: Pick<ImportRecord, 'imported_row_count' | 'failed_row_count' | 'unprocessed_row_count' | 'status'>,
): number {
  if (r.status === 'completed' || r.status === 'failed') return 100;
  const done = r.imported_row_count + r.failed_row_count;
  const total = done + r.unprocessed_row_count;
  return total === 0 ? 0 : Math.floor((done / total) * 100);
}

/** While an import runs the list is polled, so its progress bar moves without a reload. */
export const pollIntervalMs = 2000;

/**
 * An import history's polling: while one of its imports runs, or until it shows `awaitedId` (an
 * import just uploaded; the upload does not go through the typed client, so the first read may miss it).
 */
export const importListPolling =
  (awaitedId: string | null) =>
  (query: { state: { data?: { data: Pick<ImportRecord, 'id' | 'status'>[] } | undefined } }): number | false => {
    const rows = query.state.data?.data ?? [];
    const waiting = awaitedId !== null && !rows.some((r) => r.id === awaitedId);
    return waiting || rows.some(isRunning) ? pollIntervalMs : false;
  };

export const importQueries = {
  all: ['imports'] as const,
  /**
   * `awaitedId`: an import just uploaded. The upload does not go through the typed client, so the list
   * may not show it on the first read; it is polled until it does.
   */
  labelValueImports: (api: ApiClient, page: number, awaitedId: string | null = null) =>
    queryOptions({
      queryKey: [...importQueries.all, 'medical-institution-label-values', page] as const,
      queryFn: ({ signal }) => api.listLabelValueImports({ query: { page, per_page: 20 }, signal }),
      refetchInterval: importListPolling(awaitedId),
    }),
};
