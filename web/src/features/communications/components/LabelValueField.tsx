import { Checkbox, NumberInput, Radio, Select, Stack, TextInput, Textarea, Group } from '@mantine/core';
import type { CommunicationLabel, LabelValueInput } from '@renkei/contracts';
import type { z } from 'zod';

export type LabelValueValues = z.input<typeof LabelValueInput>;

/** The input a label's component type calls for (spec §9); `value` is the label's value, if any. */
export function LabelValueField({
  label,
  value,
  onChange,
  error,
  ownDepartments,
}: {
  label: CommunicationLabel;
  value: LabelValueValues | undefined;
  onChange: (value: LabelValueValues) => void;
  error?: string | undefined;
  ownDepartments: { id: string; name: string }[];
}) {
  const set = (patch: Partial<LabelValueValues>) => onChange({ label_id: label.id, ...patch });
  const common = {
    label: label.name,
    description: label.description || undefined,
    required: label.is_required,
    error,
    size: 'md' as const,
  };
  const choices = label.selections.map((s) => ({ value: s.id, label: s.label }));
  switch (label.component_type) {
    case 'text':
      return (
        <TextInput
          {...common}
          value={value?.text_value ?? ''}
          onChange={(e) => set({ text_value: e.currentTarget.value || null })}
        />
      );
    case 'textarea':
      return (
        <Textarea
          {...common}
          autosize
          minRows={2}
          value={value?.text_value ?? ''}
          onChange={(e) => set({ text_value: e.currentTarget.value || null })}
        />
      );
    case 'integer':
      return (
        <NumberInput
          {...common}
          allowDecimal={false}
          value={value?.integer_value ?? ''}
          onChange={(v) => set({ integer_value: typeof v === 'number' ? v : null })}
        />
      );
    case 'date':
      return (
        <TextInput
          {...common}
          type="date"
          value={value?.date_value ?? ''}
          onChange={(e) => set({ date_value: e.currentTarget.value || null })}
        />
      );
    case 'time':
      return (
        <TextInput
          {...common}
          type="time"
          value={value?.time_value ?? ''}
          onChange={(e) => set({ time_value: e.currentTarget.value || null })}
        />
      );
    case 'select':
      return (
        <Select
          {...common}
          data={choices}
          clearable
          value={value?.selection_id ?? null}
          onChange={(v) => set({ selection_id: v })}
        />
      );
    case 'radio':
      return (
        <Radio.Group {...common} value={value?.selection_id ?? ''} onChange={(v) => set({ selection_id: v || null })}>
          <Group gap="md" mt={4}>
            {choices.map((c) => (
              <Radio key={c.value} value={c.value} label={c.label} size="md" />
            ))}
          </Group>
        </Radio.Group>
      );
    case 'checkbox':
      return (
        <Checkbox.Group {...common} value={value?.selection_ids ?? []} onChange={(v) => set({ selection_ids: v })}>
          <Stack gap={6} mt={4}>
            {choices.map((c) => (
              <Checkbox key={c.value} value={c.value} label={c.label} size="md" />
            ))}
          </Stack>
        </Checkbox.Group>
      );
    case 'own_department':
      return (
        <Select
          {...common}
          data={ownDepartments.map((d) => ({ value: d.id, label: d.name }))}
          clearable
          searchable
          value={value?.own_department_id ?? null}
          onChange={(v) => set({ own_department_id: v })}
        />
      );
    case 'area':
      // Communication labels cannot be areas (the command service refuses them).
      return null;
    default: {
      const never: never = label.component_type;
      return never;
    }
  }
}
