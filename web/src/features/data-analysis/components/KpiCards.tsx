import { Badge, Group, Paper, SimpleGrid, Skeleton, Text } from '@mantine/core';
import { formatRate } from '../../medical-institutions/labels-ja.ts';
import { changeRate, formatCount, percent } from '../figures.ts';
import { formatPercent } from '../../../ui/percent.ts';

export interface Kpi {
  key: string;
  label: string;
  value: number | null;
  comparison: number | null;
  /** A rate shown under the figure (入院率 …), in percent. */
  rate?: { label: string; value: number | null; comparison: number | null };
}

export interface ReferralTotals {
  referrals: number;
  admissions: number;
  operations: number;
}

/** The referral figures of the cards: counts and the rates computed from them. */
export function referralKpis(now: ReferralTotals | null, before: ReferralTotals | null): Kpi[] {
  return [
    { key: 'referrals', label: '紹介件数', value: now?.referrals ?? null, comparison: before?.referrals ?? null },
    {
      key: 'admissions',
      label: '紹介入院',
      value: now?.admissions ?? null,
      comparison: before?.admissions ?? null,
      rate: {
        label: '入院率',
        value: now ? percent(now.admissions, now.referrals) : null,
        comparison: before ? percent(before.admissions, before.referrals) : null,
      },
    },
    {
      key: 'operations',
      label: '紹介手術',
      value: now?.operations ?? null,
      comparison: before?.operations ?? null,
      rate: {
        label: '手術率',
        value: now ? percent(now.operations, now.referrals) : null,
        comparison: before ? percent(before.operations, before.referrals) : null,
      },
    },
  ];
}

/** The change of a count from its comparison, in 件 and percent: green up, red down (also the CRM page's figures). */
export function KpiChange({ value, comparison }: { value: number | null; comparison: number | null }) {
  if (value === null || comparison === null) return null;
  const diff = value - comparison;
  const rate = changeRate(value, comparison);
  return (
    <Badge variant="light" color={diff > 0 ? 'teal' : diff < 0 ? 'red' : 'gray'} size="sm">
      {diff > 0 ? '+' : ''}
      {diff.toLocaleString('ja-JP')}
      {rate !== null ? `（${formatRate(rate)}）` : ''}
    </Badge>
  );
}

/** One card per figure with its change against the comparison period; a placeholder of the same size while loading. */
export function KpiCards({
  kpis,
  loading,
  stale,
  hasComparison,
  comparisonLabel = '比較期間',
}: {
  kpis: Kpi[];
  loading: boolean;
  /** The figures are those of the previous filters while the new ones load. */
  stale: boolean;
  hasComparison: boolean;
  /** What the comparison is called under each figure: the CRM page compares with 前年同期 only. */
  comparisonLabel?: string;
}) {
  return (
    <SimpleGrid
      cols={{ base: 2, sm: kpis.length }}
      data-testid="kpi-cards"
      aria-busy={stale}
      style={{ opacity: stale ? 0.5 : 1, transition: 'opacity 150ms' }}
    >
      {kpis.map((k) => (
        <Paper key={k.key} withBorder p="md" radius="md" mih={132} data-testid={`kpi-${k.key}`}>
          <Text size="sm" c="dimmed">
            {k.label}
          </Text>
          {loading ? (
            <Skeleton h={56} mt="xs" aria-busy="true" />
          ) : (
            <>
              <Group gap="xs" align="baseline">
                <Text fz={28} fw={700} data-testid={`kpi-${k.key}-value`}>
                  {formatCount(k.value)}
                </Text>
                <Text size="sm">件</Text>
                {hasComparison && <KpiChange value={k.value} comparison={k.comparison} />}
              </Group>
              {hasComparison && (
                <Text size="xs" c="dimmed">
                  {comparisonLabel} {formatCount(k.comparison)}件
                </Text>
              )}
              {k.rate && (
                <Text size="sm">
                  {k.rate.label} {formatPercent(k.rate.value)}
                  {hasComparison && k.rate.comparison !== null && (
                    <Text span size="xs" c="dimmed">
                      {' '}
                      （{comparisonLabel} {formatPercent(k.rate.comparison)}）
                    </Text>
                  )}
                </Text>
              )}
            </>
          )}
        </Paper>
      ))}
    </SimpleGrid>
  );
}
