import type { ImportRecord } from '@renkei/contracts';
import { hashKey, matchQuery, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useEffect, useMemo } from 'react';
import { importEndings } from './import-endings.ts';
import { invalidateFigures, type FigureSource } from './invalidate-figures.ts';

type HistoryPage = { data: readonly Pick<ImportRecord, 'id' | 'status' | 'created_at'>[] } | undefined;

/**
 * While an import history is shown, the figures counted from `source` are made stale whenever one of its
 * imports ends. The history's answers are read from the query cache (every page under `historyKey`), so
 * it works whoever polls them. The histories already cached are the first look: an import left running
 * there and over in the next answer ended meanwhile.
 */
export function useRefreshFiguresAfterImports(historyKey: QueryKey, source: FigureSource): void {
  const queryClient = useQueryClient();
  // The key by its content: a caller's key built in render must not start the history over.
  const keyHash = hashKey(historyKey);
  const queryKey = useMemo(() => historyKey, [keyHash]);
  useEffect(() => {
    const ended = importEndings();
    const look = (pages: readonly HistoryPage[]) => {
      if (ended(pages.flatMap((page) => page?.data ?? []))) void invalidateFigures(queryClient, source);
    };
    const cached = queryClient
      .getQueriesData<HistoryPage>({ queryKey })
      .map(([, page]) => page)
      .filter((page) => page !== undefined);
    if (cached.length > 0) look(cached);
    return queryClient.getQueryCache().subscribe((event) => {
      if (event.type !== 'updated' || event.action.type !== 'success') return;
      if (!matchQuery({ queryKey }, event.query)) return;
      look([event.query.state.data as HistoryPage]);
    });
  }, [queryClient, queryKey, source]);
}
