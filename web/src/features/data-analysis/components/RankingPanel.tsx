import { SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { RankingResult } from '@renkei/contracts';
import type { UseQueryResult } from '@tanstack/react-query';
import { combine } from '../combine-queries.ts';
import { rankingLimit } from '../data-analysis.queries.ts';
import { changeRate } from '../figures.ts';
import { joinRankings, type RankedInstitution } from '../rankings.ts';
import { AnalysisTable, exportOf, type TableColumn } from './AnalysisTable.tsx';
import { ExportMenu } from './ExportMenu.tsx';
import { Panel, QueryBody } from './Panel.tsx';

function rowsOf(list: RankedInstitution[]) {
  return list.map((r) => {
    const rate = r.previous === null ? null : changeRate(r.total, r.previous);
    return {
      id: r.id,
      rank: r.rank,
      name: r.name,
      total: r.total,
      previous: r.previous,
      change: r.change,
      change_rate: rate === null ? null : Math.round(rate * 1000) / 10,
    };
  });
}

/**
 * The rank is the institution's place among the period's referrers (紹介件数上位): in the lists of change it
 * is not the row's place in the list (a riser of rank 31 follows one of rank 3), so there it is 「全体順位」.
 */
const columns = (hasComparison: boolean, rankLabel = '順位'): TableColumn[] => [
  { key: 'rank', label: rankLabel, format: 'count' },
  { key: 'name', label: '医療機関' },
  { key: 'total', label: '紹介件数', format: 'count' },
  ...(hasComparison
    ? ([
        { key: 'previous', label: '比較期間', format: 'count' },
        { key: 'change', label: '増減', format: 'change' },
        { key: 'change_rate', label: '増減率(%)', format: 'rate' },
      ] as const)
    : []),
];

function RankingList({
  title,
  testId,
  list,
  hasComparison,
  empty,
  rankLabel,
}: {
  title: string;
  testId: string;
  list: RankedInstitution[];
  hasComparison: boolean;
  empty: string;
  rankLabel?: string;
}) {
  const cols = columns(hasComparison, rankLabel);
  const table = exportOf(title, cols, rowsOf(list));
  return (
    <Stack gap={4} data-testid={testId}>
      <SimpleGrid cols={2}>
        <Title order={3} size="h6">
          {title}
        </Title>
        <div style={{ justifySelf: 'end' }} data-print-hide>
          <ExportMenu table={table} testId={testId} />
        </div>
      </SimpleGrid>
      <AnalysisTable columns={cols} table={table} linkKey="name" maxHeight={320} empty={empty} />
    </Stack>
  );
}

/**
 * Who refers most and who changed: the total-count ranking of the period joined with the comparison
 * period's. Ranks are the server's (ties share a rank); each name opens the institution.
 */
export function RankingPanel({
  current,
  comparison,
}: {
  current: UseQueryResult<RankingResult>;
  comparison: UseQueryResult<RankingResult> | null;
}) {
  const query = combine(current, comparison);
  const hasComparison = comparison !== null;
  return (
    <Panel title="紹介元ランキング" testId="ranking-panel">
      {/* Two rows of two lists of up to 320 px each: the placeholder holds that much, so nothing below moves. */}
      <QueryBody query={query} height={720}>
        {([now, before]) => {
          const r = joinRankings(now, before, rankingLimit);
          return (
            <Stack>
              {r.truncated && (
                <Text size="xs" c="dimmed">
                  増減は両期間の上位{rankingLimit}件に入った医療機関について表示しています。
                </Text>
              )}
              <SimpleGrid cols={{ base: 1, lg: 2 }}>
                <RankingList
                  title="紹介件数上位"
                  testId="ranking-top"
                  list={r.top}
                  hasComparison={hasComparison}
                  empty="この期間の紹介はありません。"
                />
                {hasComparison && (
                  <RankingList
                    title="増加した医療機関"
                    testId="ranking-risers"
                    rankLabel="全体順位"
                    list={r.risers}
                    hasComparison
                    empty="比較期間より増えた医療機関はありません。"
                  />
                )}
                {hasComparison && (
                  <RankingList
                    title="減少した医療機関"
                    testId="ranking-fallers"
                    rankLabel="全体順位"
                    list={r.fallers}
                    hasComparison
                    empty="比較期間より減った医療機関はありません。"
                  />
                )}
                {hasComparison && (
                  <RankingList
                    title="比較期間に紹介があり今期はない医療機関"
                    testId="ranking-lost"
                    rankLabel="全体順位"
                    list={r.lost}
                    hasComparison
                    empty="該当する医療機関はありません。"
                  />
                )}
              </SimpleGrid>
            </Stack>
          );
        }}
      </QueryBody>
    </Panel>
  );
}
