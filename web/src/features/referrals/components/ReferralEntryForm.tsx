import { Button, Group, SegmentedControl, Select, SimpleGrid, Stack, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { isApiError } from '../../../api/api-errors.ts';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { useFormSubmit } from '../../../ui/useFormSubmit.ts';
import { todayInJapan } from '../../data-analysis/analysis-periods.ts';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import type { ListedReverseReferral, Referral } from '@renkei/contracts';
import {
  useCreateReferral,
  useCreateReverseReferral,
  useUpdateReferral,
  useUpdateReverseReferral,
} from '../referrals.queries.ts';

type Kind = 'referral' | 'reverse';
const empty = { date: '', patientId: '', departmentId: null as string | null, doctorFrom: '', reason: '' };

/**
 * A referral or reverse referral entered by hand (one the lists do not bring). The page's list and
 * chart are read again once it is saved; its stays appear when the DPC files link them.
 */
export function ReferralEntryForm({
  id,
  editing,
  editingReverse,
  onDone,
}: {
  id: string;
  /** A referral entered by hand, corrected here (then only the referral's fields show). */
  editing?: Referral;
  /** A reverse referral entered by hand, corrected here (then only its fields show). */
  editingReverse?: ListedReverseReferral;
  onDone?: () => void;
}) {
  const { api } = useServices();
  const departments = useQuery(referenceDataQueries.ownDepartments(api));
  const createReferral = useCreateReferral();
  const createReverse = useCreateReverseReferral();
  const updateReferral = useUpdateReferral();
  const updateReverse = useUpdateReverseReferral();
  const onError = useMutationErrorHandler();
  const correcting = editing !== undefined || editingReverse !== undefined;
  const [kind, setKind] = useState<Kind>(editingReverse ? 'reverse' : 'referral');
  const [values, setValues] = useState(
    editingReverse
      ? {
          ...empty,
          date: editingReverse.reverse_referral_date,
          patientId: editingReverse.patient_id,
          departmentId: editingReverse.specialty_id,
        }
      : editing
        ? {
            date: editing.referral_date,
            patientId: editing.patient_id,
            departmentId: editing.referral_department?.id ?? null,
            doctorFrom: editing.doctor_name_from ?? '',
            reason: editing.reason_for_presenting ?? '',
          }
        : empty,
  );
  const set = (patch: Partial<typeof empty>) => setValues((v) => ({ ...v, ...patch }));
  const { errors, saving, submit, setErrors } = useFormSubmit({
    values,
    validate: (v) => ({
      ...(v.date ? {} : { date: '日付を入力してください' }),
      // The server's own check, said before sending: a date to come is a year or month mistyped.
      ...(v.date > todayInJapan()
        ? { date: `${kind === 'referral' ? '紹介日' : '逆紹介日'}に今日より後の日付は入力できません` }
        : {}),
      ...(v.patientId.trim() ? {} : { patient_id: '患者IDを入力してください' }),
    }),
    save: async (v) => {
      try {
        const referral = {
          referral_date: v.date,
          patient_id: v.patientId,
          own_department_id: v.departmentId,
          doctor_name_from: v.doctorFrom.trim() || null,
          // Not on this form: a correction keeps what the entry had.
          ...(editing ? { doctor_name_to: editing.doctor_name_to } : {}),
          reason_for_presenting: v.reason.trim() || null,
        };
        const reverse = { reverse_referral_date: v.date, patient_id: v.patientId, specialty_id: v.departmentId };
        if (editing) await updateReferral.mutateAsync({ institutionId: id, id: editing.id, body: referral });
        else if (editingReverse)
          await updateReverse.mutateAsync({ institutionId: id, id: editingReverse.id, body: reverse });
        else if (kind === 'referral') await createReferral.mutateAsync({ id, body: referral });
        else await createReverse.mutateAsync({ id, body: reverse });
      } catch (error) {
        if (!(isApiError(error) && error.status === 422)) onError(error);
        throw error;
      }
      const what = kind === 'referral' ? '紹介' : '逆紹介';
      toast.success(correcting ? `${what}を更新しました` : `${what}を登録しました`);
      if (!correcting) setValues(empty);
      onDone?.();
    },
  });
  const dateError = errors.date ?? errors.referral_date ?? errors.reverse_referral_date;
  return (
    <form onSubmit={(e) => void submit(e)} noValidate data-testid="referral-entry-form">
      <Stack gap="sm">
        {!correcting && (
          <SegmentedControl
            value={kind}
            onChange={(k) => {
              setKind(k as Kind);
              setErrors({});
            }}
            data={[
              { value: 'referral', label: '紹介' },
              { value: 'reverse', label: '逆紹介' },
            ]}
            w="fit-content"
          />
        )}
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
          <TextInput
            type="date"
            label={kind === 'referral' ? '紹介日' : '逆紹介日'}
            required
            max={todayInJapan()}
            value={values.date}
            onChange={(e) => set({ date: e.currentTarget.value })}
            error={dateError}
          />
          <TextInput
            label="患者ID"
            required
            value={values.patientId}
            onChange={(e) => set({ patientId: e.currentTarget.value })}
            error={errors.patient_id}
          />
          <Select
            label="自院診療科"
            clearable
            data={(departments.data ?? []).map((d) => ({ value: d.id, label: d.name }))}
            value={values.departmentId}
            onChange={(departmentId) => set({ departmentId })}
            error={errors.own_department_id ?? errors.specialty_id}
          />
        </SimpleGrid>
        {kind === 'referral' && (
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <TextInput
              label="紹介元医師名"
              value={values.doctorFrom}
              onChange={(e) => set({ doctorFrom: e.currentTarget.value })}
              error={errors.doctor_name_from}
            />
            <TextInput
              label="紹介目的"
              value={values.reason}
              onChange={(e) => set({ reason: e.currentTarget.value })}
              error={errors.reason_for_presenting}
            />
          </SimpleGrid>
        )}
        <Group justify="flex-end">
          {onDone && (
            <Button variant="default" onClick={onDone}>
              キャンセル
            </Button>
          )}
          <Button type="submit" loading={saving} data-testid="referral-entry-save">
            {correcting ? '保存' : '登録'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
