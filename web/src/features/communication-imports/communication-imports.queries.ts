import { queryOptions } from '@tanstack/react-query';
import type { ImportRecord } from '@renkei/contracts';
import type { ApiClient } from '../../api/api-client.ts';
import { useApiMutation } from '../../api/useApiMutation.ts';
import { importListPolling, isRunning } from '../imports/imports.queries.ts';
import { staleFiguresAfter } from '../data-analysis/invalidate-figures.ts';

export const communicationImportQueries = {
  all: ['communication-imports'] as const,
  lists: () => [...communicationImportQueries.all, 'list'] as const,
  /** `awaitedId`: an import just uploaded, polled for until the list shows it (as the label-value import page does). */
  list: (api: ApiClient, page: number, awaitedId: string | null = null) =>
    queryOptions({
      queryKey: [...communicationImportQueries.lists(), page] as const,
      queryFn: ({ signal }) => api.listCommunicationImports({ query: { page, per_page: 20 }, signal }),
      refetchInterval: importListPolling(awaitedId),
    }),
};

/** An import can be undone once its run is over. */
export const canUndo = (record: ImportRecord): boolean => !isRunning(record);

/**
 * Undoing an import deletes the records it created or restores those it changed: communication lists
 * and the visit figures change too.
 */
export const useUndoCommunicationImport = () =>
  useApiMutation(
    (api, id: string) => api.deleteCommunicationImport({ params: { id } }),
    [communicationImportQueries.all, ['communications'], ...staleFiguresAfter('communications')],
  );
