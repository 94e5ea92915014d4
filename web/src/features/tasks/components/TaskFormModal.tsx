import { Modal, Select, SimpleGrid, Stack, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { TaskCreateInput } from '@renkei/contracts';
import { useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { SaveCancelButtons } from '../../../ui/SaveCancelButtons.tsx';
import { useFormSubmit } from '../../../ui/useFormSubmit.ts';
import { communicationQueries } from '../../communications/communications.queries.ts';
import type { TaskCreateValues } from '../tasks.queries.ts';

interface FormValues {
  title: string;
  deadline: string;
  staff_id: string | null;
}

const toInput = (v: FormValues, institutionId: string): TaskCreateValues => ({
  title: v.title,
  deadline: v.deadline || null,
  staff_id: v.staff_id,
  medical_institution_id: institutionId,
});

/**
 * A new task for one institution. Mounted for each opening, so its values start afresh; the staff
 * member starts as the signed-in user (the task then shows under 自分のタスク on /tasks).
 */
export function TaskFormModal({
  institution,
  currentUserId,
  onClose,
  onSubmit,
}: {
  institution: { id: string; name: string };
  currentUserId: string;
  onClose: () => void;
  onSubmit: (body: TaskCreateValues) => Promise<unknown>;
}) {
  const { api } = useServices();
  const staffs = useQuery(communicationQueries.staffs(api));
  const [values, setValues] = useState<FormValues>({ title: '', deadline: '', staff_id: currentUserId || null });
  const { errors, saving, submit } = useFormSubmit({
    values,
    // The contract's own check, so the messages are the server's.
    validate: (v) => {
      const parsed = TaskCreateInput.safeParse(toInput(v, institution.id));
      const out: Record<string, string> = {};
      if (!parsed.success) for (const issue of parsed.error.issues) out[String(issue.path[0])] ??= issue.message;
      return out;
    },
    save: (v) => onSubmit(toInput(v, institution.id)),
  });
  const set = <K extends keyof FormValues>(key: K, value: FormValues[K]) => setValues((v) => ({ ...v, [key]: value }));

  return (
    <Modal opened onClose={onClose} title="タスクを追加" size="md" centered>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Stack gap="sm">
          <TextInput label="医療機関" value={institution.name} readOnly variant="filled" />
          <TextInput
            label="タイトル"
            required
            value={values.title}
            onChange={(e) => set('title', e.currentTarget.value)}
            error={errors.title}
            data-autofocus
          />
          <SimpleGrid cols={{ base: 1, xs: 2 }}>
            <TextInput
              label="期限"
              type="date"
              value={values.deadline}
              onChange={(e) => set('deadline', e.currentTarget.value)}
              error={errors.deadline}
            />
            <Select
              label="担当者"
              placeholder="未設定"
              clearable
              searchable
              data={(staffs.data ?? []).map((s) => ({ value: s.id, label: s.name }))}
              value={values.staff_id}
              onChange={(v) => set('staff_id', v)}
              error={errors.staff_id}
            />
          </SimpleGrid>
          <SaveCancelButtons saving={saving} onCancel={onClose} mt="xs" testId="task-form-save" />
        </Stack>
      </form>
    </Modal>
  );
}
