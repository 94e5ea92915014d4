import { Checkbox, Group, NumberInput, Radio, Select, TextInput, Textarea } from '@mantine/core';
import type { MedicalInstitutionLabel, OwnDepartment } from '@renkei/contracts';
import type { LabelValueDraft } from '../label-values.ts';

export interface LabelValueFieldProps {
  label: MedicalInstitutionLabel;
  value: LabelValueDraft;
  onChange: (next: LabelValueDraft) => void;
  ownDepartments: readonly OwnDepartment[];
  error?: string;
}

/** The input that fits the label's component type (spec §9). */
export function LabelValueField({ label, value, onChange, ownDepartments, error }: LabelValueFieldProps) {
  const common = { label: label.name, description: label.description || undefined, error };
  const selections = [...label.selections].sort((a, b) => a.order - b.order);
  switch (label.component_type) {
    case 'text':
      return (
        <TextInput
          {...common}
          value={value.text_value ?? ''}
          onChange={(e) => onChange({ ...value, text_value: e.currentTarget.value })}
        />
      );
    case 'textarea':
      return (
        <Textarea
          {...common}
          autosize
          minRows={2}
          value={value.text_value ?? ''}
          onChange={(e) => onChange({ ...value, text_value: e.currentTarget.value })}
        />
      );
    case 'integer':
      return (
        <NumberInput
          {...common}
          allowDecimal={false}
          thousandSeparator=","
          value={value.integer_value ?? ''}
          onChange={(v) => onChange({ ...value, integer_value: typeof v === 'number' ? v : null })}
        />
      );
    case 'select':
      return (
        <Select
          {...common}
          clearable
          data={selections.map((s) => ({ value: s.id, label: s.label }))}
          value={value.selection_id}
          onChange={(v) => onChange({ ...value, selection_id: v })}
        />
      );
    case 'radio':
      return (
        <Radio.Group
          {...common}
          value={value.selection_id ?? ''}
          onChange={(v) => onChange({ ...value, selection_id: v || null })}
        >
          <Group gap="sm" mt={4}>
            {selections.map((s) => (
              <Radio key={s.id} value={s.id} label={s.label} />
            ))}
            {value.selection_id && <Radio value="" label="未選択" />}
          </Group>
        </Radio.Group>
      );
    case 'checkbox':
      return (
        <Checkbox.Group
          {...common}
          value={value.selection_ids}
          onChange={(v) => onChange({ ...value, selection_ids: v })}
        >
          <Group gap="sm" mt={4}>
            {selections.map((s) => (
              <Checkbox key={s.id} value={s.id} label={s.label} />
            ))}
          </Group>
        </Checkbox.Group>
      );
    case 'date':
      return (
        <TextInput
          {...common}
          type="date"
          value={value.date_value ?? ''}
          onChange={(e) => onChange({ ...value, date_value: e.currentTarget.value || null })}
        />
      );
    case 'time':
      return (
        <TextInput
          {...common}
          type="time"
          value={value.time_value ?? ''}
          onChange={(e) => onChange({ ...value, time_value: e.currentTarget.value || null })}
        />
      );
    case 'own_department':
      return (
        <Select
          {...common}
          clearable
          searchable
          data={ownDepartments.map((d) => ({ value: d.id, label: d.name }))}
          value={value.own_department_id}
          onChange={(v) => onChange({ ...value, own_department_id: v })}
        />
      );
    case 'area':
      return (
        <Select
          {...common}
          clearable
          data={label.areas.map((a) => ({ value: a.id, label: a.name }))}
          value={value.area_id}
          onChange={(v) => onChange({ ...value, area_id: v })}
        />
      );
    default: {
      const never: never = label.component_type;
      return <>{String(never)}</>;
    }
  }
}
