import { Checkbox, Select, Text, TextInput, Textarea } from '@mantine/core';
import type { CommunicationLabel, CommunicationType, UploadedFile } from '@renkei/contracts';
import { communicationTypeLabels } from '../communications.queries.ts';
import { AttachmentPicker } from './AttachmentPicker.tsx';
import { LabelValueField, type LabelValueValues } from './LabelValueField.tsx';

/** What the create and the edit form both enter about the record itself (not its institution or tasks). */
export interface CommunicationFieldValues {
  communication_type: CommunicationType;
  acted_date: string;
  story: string;
  memo: string;
  event_name: string;
  person_in_charge_hospital: string;
  is_doctor_attended: boolean;
  labelValues: Record<string, LabelValueValues>;
  /** Uploaded when chosen; absent in drafts kept before attachments existed. */
  attachments?: UploadedFile[];
}

const typeOptions = Object.entries(communicationTypeLabels).map(([value, label]) => ({ value, label }));
/** Types with an institution-side contact and a doctor to meet. */
const metInPerson: CommunicationType[] = ['visit', 'new_visit', 'event_attendance'];

/** The labels of the record's type, in the order the fields show them. */
export const labelsOfType = (labels: readonly CommunicationLabel[] | undefined, type: CommunicationType) =>
  (labels ?? []).filter((l) => l.communication_type === type);

/** The body's label values: one per label of the type that has a value, in the labels' order. */
export const labelValuesOf = (typeLabels: readonly CommunicationLabel[], values: CommunicationFieldValues) =>
  typeLabels.flatMap((l) => (values.labelValues[l.id] ? [values.labelValues[l.id]!] : []));

/**
 * The record's own fields, shared by the create form and the edit form so both change with the type
 * the same way: the type's labels with the input each component type calls for, and attachments.
 * Errors are the API's field paths (`label_values.<i>.…` index the values sent, see `labelValuesOf`).
 */
export function CommunicationFields({
  values,
  onChange,
  onTypeChange,
  errors,
  typeLabels,
  ownDepartments,
}: {
  values: CommunicationFieldValues;
  onChange: (patch: Partial<CommunicationFieldValues>) => void;
  /** A new type has other labels: the caller drops the old type's values with it. */
  onTypeChange: (type: CommunicationType) => void;
  errors: Record<string, string>;
  typeLabels: readonly CommunicationLabel[];
  ownDepartments: { id: string; name: string }[];
}) {
  const set = <K extends keyof CommunicationFieldValues>(key: K, value: CommunicationFieldValues[K]) =>
    onChange({ [key]: value } as Partial<CommunicationFieldValues>);
  const labelError = (labelId: string) => {
    const index = typeLabels.filter((l) => values.labelValues[l.id]).findIndex((l) => l.id === labelId);
    const prefix = `label_values.${index}.`;
    return index >= 0 ? Object.entries(errors).find(([k]) => k.startsWith(prefix))?.[1] : undefined;
  };
  return (
    <>
      <Select
        label="種別"
        size="md"
        data={typeOptions}
        value={values.communication_type}
        onChange={(v) => v && onTypeChange(v as CommunicationType)}
        allowDeselect={false}
        error={errors.communication_type}
      />
      <TextInput
        label="活動日"
        type="date"
        size="md"
        required
        value={values.acted_date}
        onChange={(e) => set('acted_date', e.currentTarget.value)}
        error={errors.acted_date}
      />
      {values.communication_type === 'event_attendance' && (
        <TextInput
          label="イベント名"
          size="md"
          value={values.event_name}
          onChange={(e) => set('event_name', e.currentTarget.value)}
          error={errors.event_name}
        />
      )}
      {metInPerson.includes(values.communication_type) && (
        <>
          <TextInput
            label="先方担当者"
            size="md"
            value={values.person_in_charge_hospital}
            onChange={(e) => set('person_in_charge_hospital', e.currentTarget.value)}
            error={errors.person_in_charge_hospital}
          />
          <Checkbox
            label="医師と面談した"
            size="md"
            checked={values.is_doctor_attended}
            onChange={(e) => set('is_doctor_attended', e.currentTarget.checked)}
          />
        </>
      )}
      <Textarea
        label="内容"
        size="md"
        autosize
        minRows={3}
        value={values.story}
        onChange={(e) => set('story', e.currentTarget.value)}
        error={errors.story}
      />
      <Textarea
        label="メモ"
        size="md"
        autosize
        minRows={2}
        value={values.memo}
        onChange={(e) => set('memo', e.currentTarget.value)}
        error={errors.memo}
      />
      {typeLabels.map((label) => (
        <LabelValueField
          key={label.id}
          label={label}
          value={values.labelValues[label.id]}
          onChange={(value) => set('labelValues', { ...values.labelValues, [label.id]: value })}
          error={labelError(label.id)}
          ownDepartments={ownDepartments}
        />
      ))}
      {errors.label_values && (
        <Text c="red" size="sm" role="alert">
          {errors.label_values}
        </Text>
      )}
      <AttachmentPicker
        value={values.attachments ?? []}
        onChange={(files) => set('attachments', files)}
        error={Object.entries(errors).find(([k]) => k.startsWith('attachment_ids'))?.[1]}
      />
    </>
  );
}
