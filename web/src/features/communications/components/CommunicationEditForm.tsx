import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { CommunicationUpdateInput, type Communication } from '@renkei/contracts';
import { useEffect, useState } from 'react';
import { isApiError } from '../../../api/api-errors.ts';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { useFormSubmit } from '../../../ui/useFormSubmit.ts';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import { communicationQueries, communicationTypeLabels, useUpdateCommunication } from '../communications.queries.ts';
import {
  CommunicationFields,
  communicationBodyOf,
  labelsOfType,
  localErrorsOf,
  type CommunicationFieldValues,
} from './CommunicationFields.tsx';
import { CommunicationTasks } from './CommunicationTasks.tsx';

const valuesOf = (c: Communication): CommunicationFieldValues => ({
  communication_type: c.communication_type,
  acted_date: c.acted_date,
  user_id: c.user?.id ?? null,
  category: c.category ?? '',
  purpose: c.purpose ?? '',
  story: c.story,
  memo: c.memo,
  other_memo: c.other_memo,
  event_name: c.event_name ?? '',
  person_in_charge_hospital: c.person_in_charge_hospital ?? '',
  attendee: c.attendee ?? '',
  is_doctor_attended: c.is_doctor_attended,
  labelValues: Object.fromEntries(c.label_values.map((v) => [v.label_id, v])),
  attachments: c.attachments,
});

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * After a 409: the latest record's values where this edit left a field as it found it, this edit's
 * values where it changed one. So neither side's work is lost; where both changed a field, the form
 * shows this edit's value and the notice shows the latest record.
 */
function rebase(
  typed: CommunicationFieldValues,
  started: CommunicationFieldValues,
  latest: CommunicationFieldValues,
): CommunicationFieldValues {
  const merged = { ...typed } as Record<keyof CommunicationFieldValues, unknown>;
  for (const key of Object.keys(latest) as (keyof CommunicationFieldValues)[])
    if (same(typed[key], started[key])) merged[key] = latest[key];
  // Label values belong to their type: when the latest type wins, so do its values (only the current
  // type's labels are sent, so values of another type left in the map are never saved).
  if (merged.communication_type !== typed.communication_type) merged.labelValues = latest.labelValues;
  return merged as unknown as CommunicationFieldValues;
}

/**
 * Editing a record with the create form's own fields (type, date, who acted, category, purpose,
 * labels, attachments…), every one sent as the form holds it. The save carries the version the edit
 * started from (If-Match): when someone else saved meanwhile the server answers 409, the latest record
 * is loaded and shown, what was typed stays in the form, and fields this edit did not change take the
 * latest values (`rebase`); saving again then saves over the latest version, knowingly. The record's
 * tasks are edited below the fields, each saved at once through the task calls (`CommunicationTasks`).
 */
export function CommunicationEditForm({
  communication,
  onSaved,
  onCancel,
  onDirtyChange,
}: {
  communication: Communication;
  onSaved: () => void;
  onCancel: () => void;
  /** Whether the form holds changes not saved yet (the dialog asks before closing over them). */
  onDirtyChange?: (dirty: boolean) => void;
}) {
  const { api } = useServices();
  const update = useUpdateCommunication();
  const onError = useMutationErrorHandler();
  const labels = useQuery(communicationQueries.labels(api));
  const ownDepartments = useQuery(referenceDataQueries.ownDepartments(api));
  const staffs = useQuery(communicationQueries.staffs(api));
  // The record the edit is based on: replaced by the latest one after a 409.
  const [base, setBase] = useState(communication);
  const [conflict, setConflict] = useState(false);
  const [values, setValues] = useState<CommunicationFieldValues>(() => valuesOf(communication));
  const typeLabels = labelsOfType(labels.data, values.communication_type);
  const dirty = !same(values, valuesOf(base));
  useEffect(() => onDirtyChange?.(dirty), [dirty, onDirtyChange]);
  // The staff member who acted stays choosable when no longer listed (left, or a support account).
  const actors =
    base.user && !(staffs.data ?? []).some((s) => s.id === base.user!.id)
      ? [...(staffs.data ?? []), base.user]
      : (staffs.data ?? []);

  const { errors, saving, submit } = useFormSubmit({
    values,
    validate: (v) => localErrorsOf(CommunicationUpdateInput, communicationBodyOf(typeLabels, v), typeLabels, v),
    save: async (v) => {
      try {
        await update.mutateAsync({
          id: base.id,
          version: base.version,
          body: communicationBodyOf(typeLabels, v),
        });
      } catch (error) {
        if (isApiError(error) && error.status === 409) {
          // Nothing typed is lost: the form keeps it, and the next save is against the latest version.
          try {
            const latest = await api.getCommunication({ params: { id: base.id } });
            setValues((typed) => rebase(typed, valuesOf(base), valuesOf(latest)));
            setBase(latest);
            setConflict(true);
          } catch (reload) {
            onError(reload);
          }
          return;
        }
        if (!(isApiError(error) && error.status === 422)) onError(error);
        throw error;
      }
      toast.success('活動記録を更新しました');
      onSaved();
    },
  });

  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <Stack gap="md" maw={720}>
        {conflict && (
          <Alert color="orange" title="他のユーザーが先に更新しました" data-testid="communication-conflict">
            <Stack gap={4}>
              <Text size="sm">
                あなたが変更した項目は入力中の内容のまま、変更していない項目は最新の内容にしました。確認のうえ、もう一度「保存する」を押してください。
              </Text>
              <Text size="sm" data-testid="communication-conflict-latest">
                最新: {base.acted_date.replaceAll('-', '/')} {communicationTypeLabels[base.communication_type]}
                {base.story ? `「${base.story.length > 60 ? `${base.story.slice(0, 60)}…` : base.story}」` : ''}
              </Text>
            </Stack>
          </Alert>
        )}
        {base.medical_institution && <Text fw={600}>{base.medical_institution.name}</Text>}
        <CommunicationFields
          values={values}
          onChange={(patch) => setValues((v) => ({ ...v, ...patch }))}
          // Values of the other type's labels stay in the form, not sent (only the chosen type's are): a type
          // changed by mistake and back keeps what was typed for its labels.
          onTypeChange={(type) => setValues((prev) => ({ ...prev, communication_type: type }))}
          errors={errors}
          typeLabels={typeLabels}
          ownDepartments={ownDepartments.data ?? []}
          staffs={actors}
          actingUserDefault={null}
        />
        <CommunicationTasks communication={communication} />
        <Group justify="flex-end">
          <Button variant="default" size="md" onClick={onCancel}>
            キャンセル
          </Button>
          <Button type="submit" size="md" loading={saving}>
            保存する
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
