import { Group, Paper, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { ComponentType, ReactNode } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { currentUserQueries } from '../../current-user/current-user.queries.ts';
import { fiscalYearOf, todayInJapan } from '../../data-analysis/analysis-periods.ts';
import { KpiCards, KpiChange, referralKpis, type Kpi } from '../../data-analysis/components/KpiCards.tsx';
import { SvgChart } from '../../data-analysis/components/SvgChart.tsx';
import { formatCount, percent } from '../../data-analysis/figures.ts';
import { AnchorLink } from '../../medical-institutions/components/router-links.tsx';
import {
  fiscalMonthsLabel,
  previousToDatePeriod,
  referralFigures,
  referralFiguresPeriod,
  type ReferralFigures,
} from '../referral-figures.ts';
import { referralQueries } from '../referrals.queries.ts';
import classes from './InstitutionReferralFigures.module.css';
import { formatPercent } from '../../../ui/percent.ts';

/**
 * What both views show: one chart request (see referralFiguresPeriod) under the referral queries' key,
 * so hand entries, matches and segment changes make it stale with the referral page, summed for today.
 */
/** 2025-04-01 → 2025/4/1. */
const slashDate = (day: string) => `${Number(day.slice(0, 4))}/${Number(day.slice(5, 7))}/${Number(day.slice(8, 10))}`;

function useReferralFigures(id: string, today: string) {
  const { api } = useServices();
  const months = useQuery(referralQueries.monthly(api, id, referralFiguresPeriod(today)));
  // The last 年度 to the same date: this month so far meets the same days of last year's month.
  const lastYear = useQuery(referralQueries.monthly(api, id, previousToDatePeriod(today)));
  // The signed-in user is always cached by the authenticated layout: read it, never fetch it here.
  const user = useQuery({ ...currentUserQueries.detail(api), enabled: false });
  const figures = months.data && lastYear.data ? referralFigures(months.data, today, lastYear.data) : null;
  // The reverse-referral feature may be off for the tenant: no figure then, as on the top page.
  const withReverse = user.data?.features.includes('reverse_referrals') === true && (figures?.hasReverse ?? true);
  const month = Number(today.slice(5, 7));
  const compared = previousToDatePeriod(today);
  return {
    failed: months.isError || lastYear.isError,
    figures,
    // 「2025/4/1〜12/1」: the days the comparison counts.
    comparedDays: `${slashDate(compared.from)}〜${slashDate(compared.to).replace(/^\d+\//, '')}`,
    withReverse,
    canUpload: user.data?.role === 'owner' && user.data.features.includes('data_uploads'),
    fy: fiscalYearOf(today),
    months: fiscalMonthsLabel(month),
    empty: figures !== null && !figures.anyReferral && !(withReverse && figures.anyReverse),
  };
}

/** The trend: this 年度's referrals month by month over the last 年度's, April to March. */
function Trend({ figures, height }: { figures: ReferralFigures; height: number }) {
  const fy = figures.fiscalYear;
  return (
    <Stack gap={2}>
      <SvgChart
        kind="line"
        labels={figures.trend.labels}
        series={[
          { key: 'current', label: `${fy}年度`, color: 'blue.6', values: figures.trend.current },
          { key: 'previous', label: `${fy - 1}年度`, color: 'gray.5', values: figures.trend.previous },
        ]}
        height={height}
        label={`月別の紹介件数（${fy}年度と${fy - 1}年度）`}
      />
      <Text size="xs" c="dimmed" data-testid="referral-trend-note">
        {figures.throughMonth}月（途中）はグラフに含みません（件数には含みます）。
      </Text>
    </Stack>
  );
}

function kpisOf(figures: ReferralFigures | null, withReverse: boolean): Kpi[] {
  const kpis = referralKpis(figures?.current ?? null, figures?.previous ?? null);
  // Where the top page puts it: after the referrals.
  if (withReverse)
    kpis.splice(1, 0, {
      key: 'reverse_referrals',
      label: '逆紹介件数',
      value: figures?.current.reverseReferrals ?? null,
      comparison: figures?.previous.reverseReferrals ?? null,
    });
  return kpis;
}

function EmptyText({ fy, link }: { fy: number; link: boolean }) {
  return (
    <Text size="sm" c="dimmed" data-testid="referral-figures-empty">
      この医療機関からの紹介データはまだありません（{fy - 1}年度以降）。
      {link ? (
        <>
          <AnchorLink to="/data_uploads" size="sm">
            データアップロード
          </AnchorLink>
          から
        </>
      ) : (
        'データアップロードから'
      )}
      紹介リストを取り込むと表示されます。
    </Text>
  );
}

const loadError = (
  <Text size="sm" c="red">
    紹介実績を読み込めませんでした。
  </Text>
);

/**
 * The CRM page's card: an institution's referral figures for this 年度 to date (Japan time, from April)
 * against the last 年度 to the same date, with the change as on the top page's cards, and the monthly
 * trend of both 年度; the referral page one click away.
 */
export function InstitutionReferralFigures({
  id,
  today = todayInJapan(),
}: {
  id: string;
  /** Today in Japan unless given (tests fix it). */
  today?: string;
}) {
  const { failed, figures, comparedDays, withReverse, canUpload, fy, months, empty } = useReferralFigures(id, today);
  let body: ReactNode;
  if (failed) body = loadError;
  else if (!figures)
    body = (
      <Stack gap="sm">
        <KpiCards kpis={kpisOf(null, withReverse)} loading stale={false} hasComparison />
        <Skeleton h={180} />
      </Stack>
    );
  else if (empty) body = <EmptyText fy={fy} link={canUpload} />;
  else
    body = (
      <Stack gap="sm">
        <KpiCards
          kpis={kpisOf(figures, withReverse)}
          loading={false}
          stale={false}
          hasComparison
          comparisonLabel="前年同期"
        />
        <div>
          <Text size="sm" fw={500}>
            月別の紹介件数
          </Text>
          <Trend figures={figures} height={180} />
        </div>
      </Stack>
    );
  return (
    <Paper withBorder p="md" data-testid="institution-referral-figures">
      <Group justify="space-between" align="flex-start" wrap="nowrap" mb="sm">
        <Stack gap={2}>
          <Title order={3} fz="md">
            紹介実績 {fy}年度（{months}）
          </Title>
          <Text size="xs" c="dimmed" data-testid="referral-figures-period">
            前年同期（{comparedDays}）と、同じ日付までの件数で比較しています。
          </Text>
        </Stack>
        <AnchorLink
          to="/crms/$id/referrals"
          params={{ id }}
          size="sm"
          data-testid="open-referrals"
          style={{ flex: 'none' }}
        >
          紹介実績を見る
        </AnchorLink>
      </Group>
      {body}
    </Paper>
  );
}

/**
 * The partner chart's section: the same figures as a small table beside the trend, short enough for the
 * sheet to stay one A4 page (rates beside their counts rather than rows of their own), and no links.
 */
export function PartnerChartReferralFigures({
  id,
  section: Section,
  tableClassName,
  today = todayInJapan(),
}: {
  id: string;
  section: ComponentType<{ title: string; children: ReactNode }>;
  /** The partner chart's table style, so the section looks like its others. */
  tableClassName?: string | undefined;
  today?: string;
}) {
  const { failed, figures, comparedDays, withReverse, fy, months, empty } = useReferralFigures(id, today);
  let body: ReactNode;
  if (failed) body = loadError;
  else if (!figures) body = <Skeleton h={120} aria-busy="true" />;
  else if (empty) body = <EmptyText fy={fy} link={false} />;
  else {
    const { current: now, previous: before } = figures;
    const cell = (n: number, rate?: number | null) =>
      `${formatCount(n)}件${rate === undefined ? '' : `（${formatPercent(rate)}）`}`;
    const row = (label: string, key: string, a: number, b: number, rates?: [number | null, number | null]) => (
      <Table.Tr key={key} data-testid={`figure-${key}`}>
        <Table.Th>{label}</Table.Th>
        <Table.Td ta="right">{cell(a, rates?.[0])}</Table.Td>
        <Table.Td ta="right">{cell(b, rates?.[1])}</Table.Td>
        <Table.Td ta="right">
          <KpiChange value={a} comparison={b} />
        </Table.Td>
      </Table.Tr>
    );
    body = (
      <div className={classes.compact}>
        <Table withTableBorder withColumnBorders className={tableClassName}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th />
              <Table.Th ta="right">{fy}年度</Table.Th>
              <Table.Th ta="right">前年同期</Table.Th>
              <Table.Th ta="right">増減</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {row('紹介', 'referrals', now.referrals, before.referrals)}
            {row('入院', 'admissions', now.admissions, before.admissions, [
              percent(now.admissions, now.referrals),
              percent(before.admissions, before.referrals),
            ])}
            {row('手術', 'operations', now.operations, before.operations, [
              percent(now.operations, now.referrals),
              percent(before.operations, before.referrals),
            ])}
            {withReverse && row('逆紹介', 'reverse_referrals', now.reverseReferrals, before.reverseReferrals)}
          </Table.Tbody>
        </Table>
        <div>
          <Trend figures={figures} height={120} />
          <Text fz={11} c="dimmed" data-testid="referral-figures-period">
            {`（ ）内は入院率・手術率。前年同期は${comparedDays}（同じ日付までの件数）。`}
          </Text>
        </div>
      </div>
    );
  }
  return (
    <Section title={`紹介実績 ${fy}年度（${months}）・前年同期比`}>
      <div className={classes.printable} data-testid="institution-referral-figures">
        {body}
      </div>
    </Section>
  );
}
