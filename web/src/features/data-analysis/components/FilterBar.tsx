import { Button, Group, MultiSelect, Paper, Select, TagsInput, TextInput } from '@mantine/core';
import type { PeriodUnit } from '@renkei/contracts';
import { useQuery } from '@tanstack/react-query';
import { memo, useMemo, useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { prefectures } from '../../reference-data/prefectures.ts';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import { fiscalYearOf, fiscalYearPeriod } from '../analysis-periods.ts';
import type { AnalysisFilters, AnalysisSearch, ComparisonMode } from '../analysis-search.ts';
import { dataAnalysisQueries } from '../data-analysis.queries.ts';

export const unitLabels: Record<PeriodUnit, string> = {
  week: '週',
  month: '月',
  quarter: '四半期',
  half_year: '半期',
  year: '年',
  fiscal_year: '年度',
};

export const comparisonLabels: Record<ComparisonMode, string> = {
  last_year: '前年同期',
  previous: '直前の同じ長さの期間',
  none: '比較しない',
};

/** The period choices: this 年度 to date, the four 年度 before it whole, or dates of one's own. */
function periodPresetOf(f: Pick<AnalysisFilters, 'from' | 'to'>, today: string, ytdEnd: string): string {
  const fy = fiscalYearOf(today);
  if (f.from === `${fy}-04-01` && f.to === ytdEnd) return 'ytd';
  const y = Number(f.from.slice(0, 4));
  const whole = fiscalYearPeriod(y);
  if (f.from === whole.from && f.to === whole.to && y >= fy - 4 && y <= fy) return `fy${y}`;
  return 'custom';
}

/** This 年度 to date says where it ends: today, or the last day of the uploaded data when that is earlier. */
function presetOptions(today: string, ytdEnd: string) {
  const fy = fiscalYearOf(today);
  // The conditions line below says why the end is not today (「紹介データは2026/11/30まで」).
  const end = ytdEnd === today ? '今日まで' : `${Number(ytdEnd.slice(5, 7))}/${Number(ytdEnd.slice(8, 10))}まで`;
  return [
    { value: 'ytd', label: `今年度（${fy}年度・${end}）` },
    ...[0, 1, 2, 3, 4].map((n) => ({ value: `fy${fy - n}`, label: `${fy - n}年度` })),
    { value: 'custom', label: '期間を指定' },
  ];
}

// A closed dropdown is not kept in the page: Mantine keeps each one mounted (hidden, with its options and its
// scroll area measuring itself), nine of them on this page before anyone opens one.
export const closedDropdowns = { keepMounted: false } as const;

const unitOptions = Object.entries(unitLabels).map(([value, label]) => ({ value, label }));
const comparisonOptions = Object.entries(comparisonLabels).map(([value, label]) => ({ value, label }));
const prefectureOptions = prefectures.map((p) => ({ value: p.code, label: p.name }));

/**
 * The one filter bar of the page; every change goes to the URL, so a link reproduces the view. Memoised:
 * its nine selects are the page's heaviest part to render, and the page re-renders with each of its
 * reference answers and router updates while loading (15 renders of the bar, ~0.25 s, before).
 */
export const FilterBar = memo(function FilterBar({
  filters,
  today,
  ytdEnd = today,
  onChange,
  withTags,
  ownFromProfile = false,
  hasOwnDefault = false,
}: {
  filters: AnalysisFilters;
  today: string;
  /** Where this 年度 to date ends (`yearToDateEnd`): today unless the data ends earlier. */
  ytdEnd?: string;
  onChange: (patch: AnalysisSearch) => void;
  withTags: boolean;
  /** The own departments chosen are the account's own department (the page opens on it). */
  ownFromProfile?: boolean;
  /**
   * The account has an own department: clearing the filter says "every department" in the link (`own: []`),
   * or the page would open on the department again.
   */
  hasOwnDefault?: boolean;
}) {
  const { api } = useServices();
  const ownDepartments = useQuery(referenceDataQueries.ownDepartments(api));
  const facilityTypes = useQuery(referenceDataQueries.facilityTypeGroups(api));
  const tags = useQuery({ ...dataAnalysisQueries.tags(api), enabled: withTags });
  // Each select's options keep their identity between renders: Mantine re-derives a select's state (and
  // may set it again in an effect) whenever its `data` is a new array.
  const presets = useMemo(() => presetOptions(today, ytdEnd), [today, ytdEnd]);
  const ownOptions = useMemo(
    () => (ownDepartments.data ?? []).map((d) => ({ value: d.id, label: d.name })),
    [ownDepartments.data],
  );
  const facilityTypeOptions = useMemo(
    () =>
      (facilityTypes.data ?? []).map((g) => ({
        group: g.name,
        items: g.facility_types.map((t) => ({ value: t.id, label: t.name })),
      })),
    [facilityTypes.data],
  );
  const tagOptions = useMemo(() => (tags.data?.data ?? []).map((t) => ({ value: t.id, label: t.name })), [tags.data]);
  const [customOpen, setCustomOpen] = useState(false);
  const preset = customOpen ? 'custom' : periodPresetOf(filters, today, ytdEnd);
  const choosePreset = (value: string | null) => {
    setCustomOpen(value === 'custom');
    if (value === 'ytd') onChange({ from: undefined, to: undefined });
    else if (value?.startsWith('fy')) onChange(fiscalYearPeriod(Number(value.slice(2))));
  };
  const setDay = (key: 'from' | 'to', value: string) => {
    const next = { from: filters.from, to: filters.to, [key]: value };
    if (/^\d{4}-\d{2}-\d{2}$/.test(value) && next.from <= next.to) onChange(next);
  };
  return (
    <Paper withBorder p="sm" radius="md" data-print-hide data-testid="analysis-filters">
      <Group align="flex-end" gap="sm">
        <Select
          comboboxProps={closedDropdowns}
          label="期間"
          w={250}
          data={presets}
          value={preset}
          onChange={choosePreset}
          allowDeselect={false}
        />
        {preset === 'custom' && (
          <>
            <TextInput
              type="date"
              label="開始日"
              value={filters.from}
              onChange={(e) => setDay('from', e.currentTarget.value)}
            />
            <TextInput
              type="date"
              label="終了日"
              value={filters.to}
              onChange={(e) => setDay('to', e.currentTarget.value)}
            />
          </>
        )}
        <Select
          comboboxProps={closedDropdowns}
          label="集計単位"
          w={110}
          data={unitOptions}
          value={filters.unit}
          onChange={(v) => v && onChange({ unit: v as PeriodUnit })}
          allowDeselect={false}
        />
        <Select
          comboboxProps={closedDropdowns}
          label="比較"
          w={200}
          data={comparisonOptions}
          value={filters.cmp}
          onChange={(v) => v && onChange({ cmp: v as ComparisonMode })}
          allowDeselect={false}
        />
        <MultiSelect
          comboboxProps={closedDropdowns}
          label="自院診療科"
          w={220}
          placeholder={filters.own.length ? undefined : 'すべて'}
          data={ownOptions}
          value={filters.own}
          description={ownFromProfile ? 'プロフィールの所属診療科' : undefined}
          onChange={(own) => onChange({ own: own.length || hasOwnDefault ? own : undefined })}
          searchable
          clearable
        />
        <MultiSelect
          comboboxProps={closedDropdowns}
          label="施設種別"
          w={220}
          placeholder={filters.ft.length ? undefined : 'すべて'}
          data={facilityTypeOptions}
          value={filters.ft}
          onChange={(ft) => onChange({ ft: ft.length ? ft : undefined })}
          searchable
          clearable
        />
        <MultiSelect
          comboboxProps={closedDropdowns}
          label="都道府県"
          w={180}
          placeholder={filters.pref.length ? undefined : 'すべて'}
          data={prefectureOptions}
          value={filters.pref}
          onChange={(pref) => onChange({ pref: pref.length ? pref : undefined })}
          searchable
          clearable
        />
        <TagsInput
          comboboxProps={closedDropdowns}
          label="市区町村"
          w={200}
          placeholder={filters.city.length ? undefined : '入力してEnter'}
          value={filters.city}
          onChange={(city) => onChange({ city: city.length ? city : undefined })}
          clearable
        />
        {withTags && (
          <MultiSelect
            comboboxProps={closedDropdowns}
            label="タグ"
            w={200}
            placeholder={filters.tags.length ? undefined : 'すべて'}
            data={tagOptions}
            value={filters.tags}
            onChange={(v) => onChange({ tags: v.length ? v : undefined })}
            searchable
            clearable
          />
        )}
        <Button variant="default" onClick={() => window.print()}>
          印刷
        </Button>
      </Group>
    </Paper>
  );
});
