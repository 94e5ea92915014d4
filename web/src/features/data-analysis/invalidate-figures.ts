import type { QueryClient, QueryKey } from '@tanstack/react-query';
import { dataAnalysisQueries } from './data-analysis.queries.ts';
import { visitChartQueries } from './visit-charts.queries.ts';

/**
 * The data figures are counted from: referral data (the referral and reverse-referral lists, the DPC
 * files, hand entries, matches of unmatched institutions) and communications (visits).
 */
export type FigureSource = 'referral_data' | 'communications';

/**
 * The caches each source makes stale. Only those kept fresh for a while need naming (`answered`, 60 s):
 * without this they would show the old figures for that long. The other screens with referral or visit
 * figures (partner search, an institution's CRM and referral pages, its segments) keep the default
 * staleTime of 0 and read them again whenever they mount.
 */
const staleAfter: Record<FigureSource, readonly QueryKey[]> = {
  // Effectiveness is among them: its control is every other institution with a referral in either period.
  referral_data: [dataAnalysisQueries.figures()],
  communications: [dataAnalysisQueries.effectivenessFigures(), visitChartQueries.figures()],
};

/** For a mutation's `invalidates`, beside its own feature's keys. */
export const staleFiguresAfter = (source: FigureSource): readonly QueryKey[] => staleAfter[source];

/** Only the queries on screen are fetched again; the others are marked stale and fetched when next shown. */
export async function invalidateFigures(queryClient: QueryClient, source: FigureSource): Promise<void> {
  await Promise.all(staleAfter[source].map((queryKey) => queryClient.invalidateQueries({ queryKey })));
}
