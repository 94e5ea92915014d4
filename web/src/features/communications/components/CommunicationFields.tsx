import { Checkbox, Select, Text, TextInput, Textarea } from '@mantine/core';
import type { CommunicationLabel, CommunicationType, UploadedFile } from '@renkei/contracts';
import type { z } from 'zod';
import { communicationTypeLabels } from '../communications.queries.ts';
import { AttachmentPicker } from './AttachmentPicker.tsx';
import { LabelValueField, type LabelValueValues } from './LabelValueField.tsx';

/** What the create and the edit form both enter about the record itself (not its institution or tasks). */
export interface CommunicationFieldValues {
  communication_type: CommunicationType;
  acted_date: string;
  /** The staff member who acted; null: the caller (the server's default). */
  user_id: string | null;
  category: string;
  purpose: string;
  story: string;
  memo: string;
  other_memo: string;
  event_name: string;
  person_in_charge_hospital: string;
  /** Who went along from the own hospital (free text). */
  attendee: string;
  is_doctor_attended: boolean;
  labelValues: Record<string, LabelValueValues>;
  /** Uploaded when chosen; absent in drafts kept before attachments existed. */
  attachments?: UploadedFile[];
}

const typeOptions = Object.entries(communicationTypeLabels).map(([value, label]) => ({ value, label }));
/** Types with an institution-side contact and a doctor to meet. */
const metInPerson: CommunicationType[] = ['visit', 'new_visit', 'event_attendance'];

/** Fields added after drafts were first kept: a draft from before lacks them. */
export const blankExtraFields = {
  user_id: null,
  category: '',
  purpose: '',
  other_memo: '',
  attendee: '',
} satisfies Partial<CommunicationFieldValues>;

/** The body's free-text line: null when left empty, as the record stores it. */
const lineOrNull = (value: string | undefined) => value?.trim() || null;

/** The record's fields as the create and update bodies both carry them (not tasks nor institution). */
export const communicationBodyOf = (typeLabels: readonly CommunicationLabel[], v: CommunicationFieldValues) => ({
  communication_type: v.communication_type,
  acted_date: v.acted_date,
  user_id: v.user_id,
  category: lineOrNull(v.category),
  purpose: lineOrNull(v.purpose),
  story: v.story,
  // Fields the type does not show are sent as they are: an edit never drops a value it did not show.
  event_name: lineOrNull(v.event_name),
  memo: v.memo,
  other_memo: v.other_memo,
  person_in_charge_hospital: lineOrNull(v.person_in_charge_hospital),
  attendee: lineOrNull(v.attendee),
  is_doctor_attended: v.is_doctor_attended,
  label_values: labelValuesOf(typeLabels, v),
  attachment_ids: (v.attachments ?? []).map((f) => f.id),
});

/** A value with every field empty: the server takes it as clearing its label. */
const isBlankLabelValue = (value: LabelValueValues | undefined) =>
  !value ||
  Object.entries(value).every(
    ([key, v]) =>
      key === 'label_id' || v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0),
  );

/**
 * The check a form makes before sending, with the server's own messages and field paths: the body
 * against the contract's schema, and every required label of the type answered. A phone without a
 * network keeps the record and sends it later, so what the server would refuse is said now, while the
 * user is still on the form, not after the phone has been put away.
 */
export function localErrorsOf(
  schema: z.ZodType,
  body: unknown,
  typeLabels: readonly CommunicationLabel[],
  values: Pick<CommunicationFieldValues, 'labelValues'>,
): Record<string, string> {
  const out: Record<string, string> = {};
  const parsed = schema.safeParse(body);
  for (const issue of parsed.error?.issues ?? []) out[issue.path.map(String).join('.')] ??= issue.message;
  const missing = typeLabels.filter((l) => l.is_required && isBlankLabelValue(values.labelValues[l.id]));
  if (missing.length > 0) out.label_values ??= missing.map((l) => `「${l.name}」を入力してください`).join('、');
  return out;
}

/** The labels of the record's type, in the order the fields show them. */
export const labelsOfType = (labels: readonly CommunicationLabel[] | undefined, type: CommunicationType) =>
  (labels ?? []).filter((l) => l.communication_type === type);

/** The body's label values: one per label of the type that has a value, in the labels' order. */
const labelValuesOf = (typeLabels: readonly CommunicationLabel[], values: CommunicationFieldValues) =>
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
  staffs,
  actingUserDefault,
}: {
  values: CommunicationFieldValues;
  onChange: (patch: Partial<CommunicationFieldValues>) => void;
  /** A new type has other labels: the caller drops the old type's values with it. */
  onTypeChange: (type: CommunicationType) => void;
  errors: Record<string, string>;
  typeLabels: readonly CommunicationLabel[];
  ownDepartments: { id: string; name: string }[];
  /** Who may have acted; a record's own staff member is among them even when no longer listed. */
  staffs: readonly { id: string; name: string }[];
  /** Shown while `user_id` is null: the caller, when one of the staff. */
  actingUserDefault: string | null;
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
      {/* What happened comes first: on a phone the one field every record needs is in view, the optional
          ones below it. */}
      <Textarea
        label="内容"
        size="md"
        autosize
        minRows={3}
        value={values.story}
        onChange={(e) => set('story', e.currentTarget.value)}
        error={errors.story}
      />
      <Select
        label="活動した担当者"
        size="md"
        data={staffs.map((s) => ({ value: s.id, label: s.name }))}
        value={values.user_id ?? actingUserDefault}
        onChange={(v) => v && set('user_id', v)}
        allowDeselect={false}
        searchable
        placeholder="自分"
        nothingFoundMessage="見つかりません"
        error={errors.user_id}
      />
      <TextInput
        label="カテゴリ"
        size="md"
        maxLength={50}
        value={values.category}
        onChange={(e) => set('category', e.currentTarget.value)}
        error={errors.category}
      />
      <TextInput
        label="目的"
        size="md"
        maxLength={100}
        value={values.purpose}
        onChange={(e) => set('purpose', e.currentTarget.value)}
        error={errors.purpose}
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
          <TextInput
            label="同行者"
            description="自院から同行した人"
            size="md"
            maxLength={200}
            value={values.attendee}
            onChange={(e) => set('attendee', e.currentTarget.value)}
            error={errors.attendee}
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
        label="メモ"
        size="md"
        autosize
        minRows={2}
        value={values.memo}
        onChange={(e) => set('memo', e.currentTarget.value)}
        error={errors.memo}
      />
      <Textarea
        label="その他メモ"
        size="md"
        autosize
        minRows={2}
        value={values.other_memo}
        onChange={(e) => set('other_memo', e.currentTarget.value)}
        error={errors.other_memo}
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
