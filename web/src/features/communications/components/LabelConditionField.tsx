import { ActionIcon, Checkbox, Group, MultiSelect, NumberInput, Paper, Stack, Text, TextInput } from '@mantine/core';
import type { CommunicationLabel } from '@renkei/contracts';
import { useEffect, useState, type KeyboardEvent } from 'react';
import type { LabelCondition } from '../communications-search.ts';

type Range = [from: keyof LabelCondition, to: keyof LabelCondition, message: string];
const ranges: Record<'integer' | 'date' | 'time', Range> = {
  integer: ['integer_min', 'integer_max', '最大値は最小値以上を入力してください'],
  date: ['date_from', 'date_to', '終了日は開始日以降を入力してください'],
  time: ['time_from', 'time_to', '終了時刻は開始時刻以降を入力してください'],
};

/**
 * The condition on one communication label, with the input its component type calls for: choices for
 * select/radio/checkbox, 「含む」 text for text/textarea, a min–max for integers, from–to for dates and
 * times, the own departments for own_department. Typed text and numbers are applied on Enter or when
 * the field is left (one search per change of mind, not per key); a reversed range stays on screen
 * with its message and is not applied.
 */
export function LabelConditionField({
  label,
  condition,
  onChange,
  onRemove,
  ownDepartments,
}: {
  label: CommunicationLabel;
  condition: LabelCondition;
  onChange: (next: LabelCondition) => void;
  onRemove: () => void;
  ownDepartments: readonly { id: string; name: string }[];
}) {
  const [draft, setDraft] = useState(condition);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => setDraft(condition), [condition]);

  const apply = (next: LabelCondition) => {
    setDraft(next);
    const range = ranges[label.component_type as keyof typeof ranges] as Range | undefined;
    if (range) {
      const [from, to, message] = range;
      const [a, b] = [next[from], next[to]];
      if (a !== undefined && b !== undefined && a > b) return setError(message);
    }
    setError(null);
    // Leaving a field unchanged is no new search (and keeps the page).
    if (JSON.stringify(next) !== JSON.stringify(condition)) onChange(next);
  };
  const set = (patch: Partial<LabelCondition>) => ({ ...draft, ...patch });
  const onEnter = (e: KeyboardEvent) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      apply(draft);
    }
  };
  const list = (values: string[]) => (values.length ? values : undefined);
  const empty = draft.is_empty === true;

  const input = (() => {
    switch (label.component_type) {
      case 'text':
      case 'textarea':
        return (
          <TextInput
            aria-label={`${label.name}（含む）`}
            placeholder="含む文字"
            value={draft.text ?? ''}
            maxLength={100}
            disabled={empty}
            onChange={(e) => setDraft(set({ text: e.currentTarget.value.trim() || undefined }))}
            onBlur={() => apply(draft)}
            onKeyDown={onEnter}
          />
        );
      case 'integer':
        return (
          <Group gap={6} wrap="nowrap" align="flex-start">
            {(['integer_min', 'integer_max'] as const).map((key, i) => (
              <NumberInput
                key={key}
                aria-label={`${label.name}（${i === 0 ? '最小' : '最大'}）`}
                placeholder={i === 0 ? '最小' : '最大'}
                allowDecimal={false}
                min={-2147483648}
                max={2147483647}
                value={draft[key] ?? ''}
                disabled={empty}
                onChange={(v) => setDraft(set({ [key]: typeof v === 'number' ? v : undefined }))}
                onBlur={() => apply(draft)}
                onKeyDown={onEnter}
                error={i === 1 ? error : undefined}
                style={{ flex: 1 }}
              />
            ))}
          </Group>
        );
      case 'date':
      case 'time': {
        const [from, to] = ranges[label.component_type];
        return (
          <Group gap={6} wrap="nowrap" align="flex-start">
            {([from, to] as const).map((key, i) => (
              <TextInput
                key={key}
                type={label.component_type}
                aria-label={`${label.name}（${i === 0 ? '開始' : '終了'}）`}
                value={(draft[key] as string | undefined) ?? ''}
                disabled={empty}
                onChange={(e) => apply(set({ [key]: e.currentTarget.value || undefined }))}
                error={i === 1 ? error : undefined}
                style={{ flex: 1 }}
              />
            ))}
          </Group>
        );
      }
      case 'select':
      case 'radio':
      case 'checkbox':
        return (
          <MultiSelect
            aria-label={`${label.name}（いずれか）`}
            placeholder={draft.selection_ids?.length ? undefined : '選択肢（いずれか）'}
            data={label.selections.map((s) => ({ value: s.id, label: s.label }))}
            value={draft.selection_ids ?? []}
            disabled={empty}
            onChange={(v) => apply(set({ selection_ids: list(v) }))}
            clearable
          />
        );
      case 'own_department':
        return (
          <MultiSelect
            aria-label={`${label.name}（いずれか）`}
            placeholder={draft.own_department_ids?.length ? undefined : '診療科（いずれか）'}
            data={ownDepartments.map((d) => ({ value: d.id, label: d.name }))}
            value={draft.own_department_ids ?? []}
            disabled={empty}
            onChange={(v) => apply(set({ own_department_ids: list(v) }))}
            searchable
            clearable
          />
        );
      case 'area':
        return null;
      default: {
        const never: never = label.component_type;
        return never;
      }
    }
  })();

  return (
    <Paper withBorder p="xs" data-testid="label-condition">
      <Stack gap={6}>
        <Group justify="space-between" wrap="nowrap">
          <Text size="sm" fw={600}>
            {label.name}
          </Text>
          <ActionIcon variant="subtle" color="gray" aria-label={`${label.name}の条件を削除`} onClick={onRemove}>
            ×
          </ActionIcon>
        </Group>
        {input}
        <Checkbox
          size="xs"
          label="未入力のもの"
          checked={empty}
          // Without a value: the other fields of the condition no longer apply.
          onChange={(e) =>
            apply(e.currentTarget.checked ? { label_id: label.id, is_empty: true } : { label_id: label.id })
          }
        />
      </Stack>
    </Paper>
  );
}
