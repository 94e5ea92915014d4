import { Alert, Group, MultiSelect, SegmentedControl, SimpleGrid, Stack, Text } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { AnchorLink } from '../../medical-institutions/components/router-links.tsx';
import type { AnalysisFilters } from '../analysis-search.ts';
import { formatCount, percent } from '../figures.ts';
import {
  defaultVisitOptions,
  visitChartQueries,
  visitRows,
  type VisitChartOptions,
  type VisitRow,
  type VisitTypeFilter,
} from '../visit-charts.queries.ts';
import { AnalysisTable, exportOf, type TableColumn } from './AnalysisTable.tsx';
import { ExportMenu } from './ExportMenu.tsx';
import { Panel, QueryBody, Figure } from './Panel.tsx';
import { SvgChart } from './SvgChart.tsx';
import { closedDropdowns, unitLabels } from './FilterBar.tsx';
import { formatPercent } from '../../../ui/percent.ts';

const keep = { placeholderData: keepPreviousData } as const;

const typeChoices: { value: VisitTypeFilter; label: string }[] = [
  { value: 'all', label: 'すべて' },
  { value: 'visit', label: '訪問' },
  { value: 'new_visit', label: '新規訪問' },
];

function columnsOf(axis: string): TableColumn[] {
  return [
    { key: 'label', label: axis },
    { key: 'visit', label: '訪問', format: 'count' },
    { key: 'new_visit', label: '新規訪問', format: 'count' },
    { key: 'visits', label: '訪問件数（計）', format: 'count' },
    { key: 'doctor_interviews', label: '医師面談', format: 'count' },
    { key: 'doctor_interview_rate', label: '医師面談率', format: 'percent' },
    { key: 'next_actions', label: 'ネクストアクション設定', format: 'count' },
    { key: 'next_action_rate', label: 'ネクストアクション設定率', format: 'percent' },
  ];
}

function totalsOf(rows: VisitRow[]) {
  const sum = (key: 'visits' | 'doctor_interviews' | 'next_actions') => rows.reduce((n, r) => n + r[key], 0);
  const visits = sum('visits');
  return {
    visits,
    doctorRate: percent(sum('doctor_interviews'), visits),
    actionRate: percent(sum('next_actions'), visits),
  };
}

const showPercent = (p: number | null) => formatPercent(p);

/**
 * 訪問分析: visits per bucket of the page's unit (訪問 and 新規訪問), the share of visits where a doctor
 * was met and the share that set a next action (a task), for the page's period and institution filters
 * and the panel's own staff and type choices.
 */
export function VisitAnalysisPanel({ filters }: { filters: AnalysisFilters }) {
  const { api } = useServices();
  const [options, setOptions] = useState<VisitChartOptions>(defaultVisitOptions);
  const staffs = useQuery(visitChartQueries.staffs(api));
  const visits = useQuery({ ...visitChartQueries.visits(api, filters, options), ...keep });
  const doctors = useQuery({ ...visitChartQueries.doctorInterviewRates(api, filters, options), ...keep });
  const actions = useQuery({ ...visitChartQueries.nextActionRates(api, filters, options), ...keep });
  const rows =
    visits.data && doctors.data && actions.data ? visitRows(visits.data, doctors.data, actions.data) : undefined;
  const axis = unitLabels[filters.unit];
  const columns = columnsOf(axis);
  const table = rows
    ? exportOf(
        '訪問分析',
        columns,
        rows.map((r) => ({ ...r })),
      )
    : undefined;
  // One body for the three calls: loading until all have answered, the first failure shown in place.
  const combined = {
    data: rows,
    error: visits.error ?? doctors.error ?? actions.error,
    isPending: visits.isPending || doctors.isPending || actions.isPending,
    isError: visits.isError || doctors.isError || actions.isError,
    isPlaceholderData: visits.isPlaceholderData || doctors.isPlaceholderData || actions.isPlaceholderData,
  };

  return (
    <Panel
      title={`訪問分析（${axis}別）`}
      testId="visit-analysis-panel"
      actions={<ExportMenu table={table} testId="visit-analysis" />}
    >
      <Group gap="md" mb="sm" align="flex-end" data-print-hide>
        <MultiSelect
          comboboxProps={closedDropdowns}
          label="担当者"
          placeholder={options.userIds.length ? undefined : 'すべて'}
          data={(staffs.data ?? []).map((s) => ({ value: s.id, label: s.name }))}
          value={options.userIds}
          onChange={(userIds) => setOptions((o) => ({ ...o, userIds }))}
          searchable
          clearable
          w={320}
          data-testid="visit-staff-filter"
        />
        <div>
          <Text size="sm" fw={500} mb={4}>
            種別
          </Text>
          <SegmentedControl
            data={typeChoices}
            value={options.type}
            onChange={(type) => setOptions((o) => ({ ...o, type: type as VisitTypeFilter }))}
            data-testid="visit-type-filter"
          />
        </div>
      </Group>
      {filters.own.length > 0 && (
        <Text size="xs" c="dimmed" mb="xs">
          自院診療科の条件は訪問分析には適用されません（活動記録には自院診療科がないため）。
        </Text>
      )}
      <QueryBody query={combined} height={560}>
        {(data) => {
          const totals = totalsOf(data);
          if (totals.visits === 0)
            return (
              <Alert
                color="gray"
                variant="light"
                title="この期間の訪問記録はありません"
                data-testid="visit-analysis-empty"
              >
                条件に合う訪問・新規訪問の活動記録がありません。期間や条件を変えるか、
                <AnchorLink to="/communications/new">活動記録を登録</AnchorLink>
                してください。
              </Alert>
            );
          const labels = data.map((r) => r.label);
          const values = (key: 'visit' | 'new_visit' | 'doctor_interview_rate' | 'next_action_rate') =>
            data.map((r) => r[key]);
          return (
            <Stack gap="sm">
              <SimpleGrid cols={{ base: 1, sm: 3 }}>
                <Figure label="訪問件数" value={formatCount(totals.visits)} testId="visit-total" />
                <Figure label="医師面談率" value={showPercent(totals.doctorRate)} testId="visit-doctor-rate" />
                <Figure
                  label="ネクストアクション設定率"
                  value={showPercent(totals.actionRate)}
                  testId="visit-next-action-rate"
                />
              </SimpleGrid>
              <div>
                <Text size="sm" fw={500}>
                  訪問件数
                </Text>
                <SvgChart
                  kind="stacked"
                  height={220}
                  label="訪問件数"
                  labels={labels}
                  series={[
                    { key: 'visit', label: '訪問', color: 'blue.6', values: values('visit') },
                    { key: 'new_visit', label: '新規訪問', color: 'teal.6', values: values('new_visit') },
                  ]}
                />
              </div>
              <div>
                <Text size="sm" fw={500}>
                  医師面談率・ネクストアクション設定率（%）
                </Text>
                <SvgChart
                  kind="line"
                  height={220}
                  unit="%"
                  fixedMax={100}
                  label="医師面談率・ネクストアクション設定率"
                  labels={labels}
                  series={[
                    {
                      key: 'doctor_interview_rate',
                      label: '医師面談率',
                      color: 'orange.6',
                      values: values('doctor_interview_rate'),
                    },
                    {
                      key: 'next_action_rate',
                      label: 'ネクストアクション設定率',
                      color: 'grape.5',
                      values: values('next_action_rate'),
                    },
                  ]}
                />
              </div>
              <AnalysisTable columns={columns} table={table!} maxHeight={200} />
              <Text size="xs" c="dimmed">
                訪問は種別「訪問」「新規訪問」の活動記録です。医師面談率は医師と面談した訪問の割合、ネクストアクション設定率はタスクが登録された訪問の割合です（訪問のない期間は「—」）。
              </Text>
            </Stack>
          );
        }}
      </QueryBody>
    </Panel>
  );
}
