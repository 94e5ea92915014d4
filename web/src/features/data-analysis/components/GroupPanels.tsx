import { Stack } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useServices } from '../../../app/services-context.tsx';
import type { AnalysisFilters } from '../analysis-search.ts';
import { dataAnalysisQueries } from '../data-analysis.queries.ts';
import { ChartPanel } from './ChartPanel.tsx';
import { unitLabels } from './FilterBar.tsx';

/** A group tenant's institutions compared: each one's referrals in the period against the comparison, and their trend. */
export function GroupPanels({ filters }: { filters: AnalysisFilters }) {
  const { api } = useServices();
  const comparison = useQuery({
    ...dataAnalysisQueries.groupComparison(api, filters),
    placeholderData: keepPreviousData,
  });
  const trend = useQuery({ ...dataAnalysisQueries.groupTrend(api, filters), placeholderData: keepPreviousData });
  return (
    <Stack gap="md" data-testid="group-panels">
      <ChartPanel
        title="グループ病院の紹介件数（期間比較）"
        testId="group-comparison-panel"
        axis="医療機関"
        kind="bar"
        query={comparison}
      />
      <ChartPanel
        title={`グループ病院の紹介件数の推移（${unitLabels[filters.unit]}別）`}
        testId="group-trend-panel"
        axis={unitLabels[filters.unit]}
        kind="line"
        query={trend}
      />
    </Stack>
  );
}
