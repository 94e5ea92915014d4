import { Button, Group, MultiSelect, NativeSelect, NumberInput, Stack, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import { tagQueries } from '../../tags/tags.queries.ts';
import type { SalesMapState, VisitFilterValue } from '../sales-map-state.ts';

export interface SalesMapFilterPanelProps {
  state: SalesMapState;
  /** The period used when the address names none, shown in the date fields. */
  period: { from: string; to: string };
  onApply: (state: SalesMapState) => void;
}

const visitFilterLabels: Record<VisitFilterValue, string> = {
  all: 'すべて',
  first_visit: '期間内に未訪問（初回訪問先）',
  return_visit: '期間内に訪問済（再訪問先）',
};

/** Edited as a draft and applied together, so one search runs per change of mind. */
export function SalesMapFilterPanel({ state, period, onApply }: SalesMapFilterPanelProps) {
  const { api } = useServices();
  // The page remounts the panel (its key) when the applied filters change, so the draft starts from them.
  const [draft, setDraft] = useState<SalesMapState>(state);
  const [error, setError] = useState<string | null>(null);
  const facilityGroups = useQuery(referenceDataQueries.facilityTypeGroups(api));
  const tags = useQuery(tagQueries.list(api, { page: 1, per_page: 100, sort: 'asc' }));

  const set = <K extends keyof SalesMapState>(key: K, value: SalesMapState[K]) =>
    setDraft((d) => ({ ...d, [key]: value }));
  const list = (values: string[]) => (values.length ? values : undefined);
  const from = draft.from ?? period.from;
  const to = draft.to ?? period.to;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!from || !to || from > to) {
      setError('期間の終了日は開始日以降の日付を指定してください');
      return;
    }
    setError(null);
    onApply({ ...draft, from, to });
  };

  return (
    <form onSubmit={submit} aria-label="絞り込み条件">
      <Stack gap="sm">
        <Stack gap="xs">
          <TextInput
            type="date"
            label="期間（開始）"
            value={from}
            onChange={(e) => set('from', e.currentTarget.value || undefined)}
          />
          <TextInput
            type="date"
            label="期間（終了）"
            value={to}
            onChange={(e) => set('to', e.currentTarget.value || undefined)}
            error={error}
          />
        </Stack>
        <Text size="xs" c="dimmed">
          紹介数と訪問はこの期間で数えます
        </Text>
        <MultiSelect
          label="施設区分"
          data={(facilityGroups.data ?? []).map((g) => ({
            group: g.name,
            items: g.facility_types.map((f) => ({ value: f.id, label: f.name })),
          }))}
          value={draft.facility_type_ids ?? []}
          onChange={(v) => set('facility_type_ids', list(v))}
          searchable
          clearable
        />
        <MultiSelect
          label="タグ"
          description="いずれかのタグが付いた医療機関"
          data={(tags.data?.data ?? []).map((t) => ({ value: t.id, label: t.name }))}
          value={draft.tag_ids ?? []}
          onChange={(v) => set('tag_ids', list(v))}
          searchable
          clearable
        />
        <NumberInput
          label="最低紹介数"
          min={0}
          allowDecimal={false}
          allowNegative={false}
          value={draft.min_referral_count ?? ''}
          onChange={(v) => set('min_referral_count', typeof v === 'number' ? v : undefined)}
        />
        <NativeSelect
          label="訪問"
          data={Object.entries(visitFilterLabels).map(([value, label]) => ({ value, label }))}
          value={draft.visit ?? 'all'}
          onChange={(e) => {
            const v = e.currentTarget.value as VisitFilterValue;
            set('visit', v === 'all' ? undefined : v);
          }}
        />
        <Group justify="flex-end" gap="xs">
          <Button variant="default" onClick={() => onApply({})}>
            クリア
          </Button>
          <Button type="submit">絞り込む</Button>
        </Group>
      </Stack>
    </form>
  );
}
