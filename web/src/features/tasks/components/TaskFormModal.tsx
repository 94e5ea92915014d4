import { Modal, SegmentedControl, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { TaskUpdateInput, type Task } from '@renkei/contracts';
import { useId, useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import type { PickedInstitution } from '../../../ui/InstitutionPicker.tsx';
import { SaveCancelButtons } from '../../../ui/SaveCancelButtons.tsx';
import { useFormSubmit } from '../../../ui/useFormSubmit.ts';
import { communicationQueries } from '../../communications/communications.queries.ts';
import type { TaskUpdateValues } from '../tasks.queries.ts';
import { TaskInstitutionSelect } from './TaskInstitutionSelect.tsx';
import { useReturnFocus } from '../../../ui/useReturnFocus.ts';

interface FormValues {
  title: string;
  deadline: string;
  staff_id: string | null;
  institution: PickedInstitution | null;
  status: Task['status'];
}

/** What the form saves: the update's body; a new task leaves out the status (it starts incomplete). */
export type TaskFormOutput = TaskUpdateValues & { medical_institution_id: string | null };

const toOutput = (v: FormValues): TaskFormOutput => ({
  title: v.title,
  deadline: v.deadline || null,
  staff_id: v.staff_id,
  medical_institution_id: v.institution?.id ?? null,
  status: v.status,
});

const initialValues = (task: Task | null, institution: PickedInstitution | null, currentUserId: string): FormValues =>
  task
    ? {
        title: task.title,
        deadline: task.deadline ?? '',
        staff_id: task.staff?.id ?? null,
        institution: task.medical_institution && {
          id: task.medical_institution.id,
          name: task.medical_institution.name,
        },
        status: task.status,
      }
    : { title: '', deadline: '', staff_id: currentUserId || null, institution, status: 'incomplete' };

/**
 * A task's dialog: a new one for the given institution (the staff member starts as the signed-in user,
 * so it shows under 自分のタスク on /tasks) or for one picked here, or an edit of `task` with its status
 * and institution.
 * Mounted for each opening, so its values start afresh.
 */
export function TaskFormModal({
  task,
  institution = null,
  institutionEditable = false,
  currentUserId,
  onClose,
  onSubmit,
}: {
  task: Task | null;
  /** The institution of a new task (its page's); an edit shows the task's own, which may change. */
  institution?: PickedInstitution | null;
  /** A new task's institution is picked in the form (on /tasks), starting from `institution`. */
  institutionEditable?: boolean;
  currentUserId: string;
  onClose: () => void;
  onSubmit: (body: TaskFormOutput) => Promise<unknown>;
}) {
  useReturnFocus(true);
  const { api } = useServices();
  const statusLabelId = useId();
  const staffs = useQuery(communicationQueries.staffs(api));
  const [values, setValues] = useState<FormValues>(() => initialValues(task, institution, currentUserId));
  const { errors, saving, submit } = useFormSubmit({
    values,
    // The contract's own check, so the messages are the server's.
    validate: (v) => {
      const parsed = TaskUpdateInput.safeParse(toOutput(v));
      const out: Record<string, string> = {};
      if (!parsed.success) for (const issue of parsed.error.issues) out[String(issue.path[0])] ??= issue.message;
      return out;
    },
    save: (v) => onSubmit(toOutput(v)),
  });
  const set = <K extends keyof FormValues>(key: K, value: FormValues[K]) => setValues((v) => ({ ...v, [key]: value }));
  const staffOptions = (staffs.data ?? []).map((s) => ({ value: s.id, label: s.name }));
  // A staff member no longer listed (left the tenant) is still shown by name, not as an empty field.
  if (task?.staff && !staffOptions.some((o) => o.value === task.staff!.id))
    staffOptions.push({ value: task.staff.id, label: task.staff.name });

  return (
    <Modal opened onClose={onClose} title={task ? 'タスクを編集' : 'タスクを追加'} size="md" centered>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Stack gap="sm">
          {task || institutionEditable ? (
            <TaskInstitutionSelect
              label="医療機関"
              value={values.institution}
              onChange={(v) => set('institution', v)}
              placeholder="未設定（名称で検索）"
              error={errors.medical_institution_id}
            />
          ) : (
            <TextInput label="医療機関" value={institution?.name ?? ''} readOnly variant="filled" />
          )}
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
              data={staffOptions}
              value={values.staff_id}
              onChange={(v) => set('staff_id', v)}
              error={errors.staff_id}
            />
          </SimpleGrid>
          {task && (
            <Stack gap={4}>
              <Text size="sm" fw={500} id={statusLabelId}>
                状況
              </Text>
              <SegmentedControl
                aria-labelledby={statusLabelId}
                value={values.status}
                onChange={(v) => set('status', v as Task['status'])}
                data={[
                  { value: 'incomplete', label: '未完了' },
                  { value: 'finished', label: '完了' },
                ]}
              />
              {errors.status && (
                <Text size="xs" c="red">
                  {errors.status}
                </Text>
              )}
            </Stack>
          )}
          <SaveCancelButtons saving={saving} onCancel={onClose} mt="xs" testId="task-form-save" />
        </Stack>
      </form>
    </Modal>
  );
}
