import { Button, Group, MultiSelect, Stack, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import type { SegmentMapState } from '../segment-map-state.ts';

export interface SegmentMapFilterPanelProps {
  state: SegmentMapState;
  /** The period used when the address names none (the last whole 年度), shown in the date fields. */
  period: { from: string; to: string };
  onApply: (state: SegmentMapState) => void;
}

/** Edited as a draft and applied together, so one request runs per change of mind. */
export function SegmentMapFilterPanel({ state, period, onApply }: SegmentMapFilterPanelProps) {
  const { api } = useServices();
  // The page remounts the panel (its key) when the applied filters change, so the draft starts from them.
  const [draft, setDraft] = useState<SegmentMapState>(state);
  const [error, setError] = useState<string | null>(null);
  const ownDepartments = useQuery(referenceDataQueries.ownDepartments(api));
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
        <TextInput
          type="date"
          label="期間（開始）"
          value={from}
          onChange={(e) => setDraft((d) => ({ ...d, from: e.currentTarget.value || undefined }))}
        />
        <TextInput
          type="date"
          label="期間（終了）"
          value={to}
          onChange={(e) => setDraft((d) => ({ ...d, to: e.currentTarget.value || undefined }))}
          error={error}
        />
        <Text size="xs" c="dimmed">
          紹介数と入院率はこの期間（月単位）で数え、セグメント設定の条件で分類します
        </Text>
        <MultiSelect
          label="自院診療科"
          placeholder="すべて"
          data={(ownDepartments.data ?? []).map((d) => ({ value: d.id, label: d.name }))}
          value={draft.own_department_ids ?? []}
          onChange={(v) => setDraft((d) => ({ ...d, own_department_ids: v.length ? v : undefined }))}
          searchable
          clearable
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
