import { Group, SimpleGrid, Stack, Text } from '@mantine/core';
import type { EffectivenessResult } from '@renkei/contracts';
import type { UseQueryResult } from '@tanstack/react-query';
import type { z } from 'zod';
import { formatRate } from '../../medical-institutions/labels-ja.ts';
import type { Period } from '../analysis-periods.ts';
import { changeRate, formatCount } from '../figures.ts';
import { AnalysisTable, exportOf, type TableColumn } from './AnalysisTable.tsx';
import { ExportMenu } from './ExportMenu.tsx';
import { Panel, QueryBody, Figure } from './Panel.tsx';

type Result = z.infer<typeof EffectivenessResult>;

const columns: TableColumn[] = [
  { key: 'name', label: '医療機関' },
  { key: 'communications', label: '訪問日数', format: 'count' },
  { key: 'referrals', label: '紹介件数', format: 'count' },
  { key: 'previous', label: '比較期間の紹介件数', format: 'count' },
  { key: 'change_rate', label: '増減率(%)', format: 'rate' },
];

const slash = (day: string) => day.replaceAll('-', '/');

/** What the figures mean, shown with them (docs/decisions.md, visit effectiveness). */
function effectivenessDefinition(period: Period, comparison: Period): string {
  return (
    `期間（${slash(period.from)}〜${slash(period.to)}）に訪問した医療機関（同じ日の訪問は1回と数えます）について、` +
    `期間の紹介件数を比較期間（${slash(comparison.from)}〜${slash(comparison.to)}）の紹介件数と比べます` +
    '（どちらも指定した日の範囲で集計）。対照は、どちらかの期間に紹介があり訪問しなかったすべての医療機関の変化率です。' +
    '訪問先の変化率が対照を上回れば、訪問が紹介の増加に結びついたとみます。'
  );
}

/** Did the visits of the period go with more referrals than the institutions not visited? */
export function EffectivenessPanel({
  query,
  period,
  comparison,
}: {
  query: UseQueryResult<Result>;
  period: Period;
  comparison: Period;
}) {
  const rows = (query.data?.data ?? [])
    .map((r) => {
      const rate = changeRate(r.referral_count, r.comparison_referral_count);
      return {
        id: r.medical_institution.id,
        name: r.medical_institution.name,
        communications: r.communication_count,
        referrals: r.referral_count,
        previous: r.comparison_referral_count,
        change_rate: rate === null ? null : Math.round(rate * 1000) / 10,
      };
    })
    .sort((a, b) => b.communications - a.communications || b.referrals - a.referrals);
  const table = query.data ? exportOf('訪問の効果検証', columns, rows) : undefined;
  return (
    <Panel
      title="訪問の効果検証"
      testId="effectiveness-panel"
      actions={<ExportMenu table={table} testId="effectiveness" />}
    >
      <Text size="xs" c="dimmed" mb="sm" data-testid="effectiveness-definition">
        {effectivenessDefinition(period, comparison)}
      </Text>
      <QueryBody query={query} height={360}>
        {(result) => (
          <Stack>
            <SimpleGrid cols={{ base: 2, md: 4 }}>
              <Figure
                label="訪問した医療機関"
                value={`${formatCount(result.summary.communicated_institution_count)}件`}
                testId="effectiveness-institutions"
              />
              <Figure
                label="訪問先からの紹介（期間／比較期間）"
                value={`${formatCount(result.summary.referral_count)}／${formatCount(result.summary.comparison_referral_count)}`}
                testId="effectiveness-referrals"
              />
              <Figure
                label="訪問先の紹介の変化率"
                value={formatRate(result.summary.communicated_referral_change_rate) || '—'}
                testId="effectiveness-communicated-rate"
              />
              <Figure
                label="訪問しなかった医療機関の変化率（対照）"
                value={formatRate(result.summary.non_communicated_referral_change_rate) || '—'}
                testId="effectiveness-control-rate"
              />
            </SimpleGrid>
            <Group>
              <AnalysisTable
                columns={columns}
                table={table!}
                linkKey="name"
                maxHeight={260}
                empty="この期間に訪問した医療機関はありません。"
              />
            </Group>
          </Stack>
        )}
      </QueryBody>
    </Panel>
  );
}
