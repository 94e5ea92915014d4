import { ActionIcon, Button, Card, Checkbox, Group, Loader, Select, Stack, Text, TextInput } from '@mantine/core';
import { useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Communication, Task } from '@renkei/contracts';
import { useState, type KeyboardEvent } from 'react';
import { fieldErrorsOf, isApiError } from '../../../api/api-errors.ts';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { currentUserQueries } from '../../current-user/current-user.queries.ts';
import { taskQueries, useCreateTask, useDeleteTask, useUpdateTask } from '../../tasks/tasks.queries.ts';
import { communicationQueries, ownTaskStaff } from '../communications.queries.ts';

interface Draft {
  title: string;
  deadline: string;
  staff_id: string | null;
}

/** A new task's staff until the user picks one (or clears it): the writer, as on the create form. */
interface NewDraft extends Omit<Draft, 'staff_id'> {
  staff_id: string | null | undefined;
}

type StaffOption = { value: string; label: string };

const taskConflict = 'このタスクは他のユーザーが先に更新しました。最新の内容を表示しました。';

/** Enter in a task's field acts on the task, not on the surrounding record's form. */
const onEnter = (action: () => void) => (e: KeyboardEvent) => {
  if (e.key !== 'Enter') return;
  e.preventDefault();
  action();
};

/**
 * The tasks of a record being edited, each saved at once through the task calls (`/tasks`), not with
 * the record (its PUT carries no tasks): listed with their latest version, added linked to the record,
 * edited, completed and deleted, each write with the task's own If-Match.
 */
export function CommunicationTasks({ communication }: { communication: Communication }) {
  const { api } = useServices();
  const staffs = useQuery(communicationQueries.staffs(api));
  const staffOptions = (staffs.data ?? []).map((s) => ({ value: s.id, label: s.name }));
  // Which tasks this record has, as the edit goes: the record's own, plus those added here, minus deleted ones.
  const [ids, setIds] = useState(() => communication.tasks.map((t) => t.id));
  const tasks = useQueries({ queries: ids.map((id) => taskQueries.detail(api, id)) });
  const create = useCreateTask();
  const onError = useMutationErrorHandler();
  const account = useQuery({ ...currentUserQueries.detail(api), enabled: false });
  const [draft, setDraft] = useState<NewDraft>({ title: '', deadline: '', staff_id: undefined });
  const staffId = draft.staff_id === undefined ? ownTaskStaff(staffs.data, account.data?.id) : draft.staff_id;
  const [errors, setErrors] = useState<Record<string, string>>({});

  const add = async () => {
    setErrors({});
    try {
      const task = await create.mutateAsync({
        title: draft.title,
        deadline: draft.deadline || null,
        staff_id: staffId,
        medical_institution_id: communication.medical_institution?.id ?? null,
        communication_id: communication.id,
      });
      setIds((list) => [...list, task.id]);
      setDraft({ title: '', deadline: '', staff_id: undefined });
      toast.success('タスクを追加しました');
    } catch (error) {
      const byField = fieldErrorsOf(error);
      if (Object.keys(byField).length > 0) setErrors(byField);
      else onError(error);
    }
  };

  return (
    <Stack gap="xs" data-testid="communication-tasks">
      <Text fw={600}>タスク</Text>
      <Text size="xs" c="dimmed">
        タスクの追加・変更・完了・削除はその場で保存されます。
      </Text>
      {tasks.map((q, i) =>
        q.data ? (
          <TaskRow
            key={`${q.data.id}:${q.data.version}`}
            task={q.data}
            staffOptions={staffOptions}
            onDeleted={() => setIds((list) => list.filter((id) => id !== q.data.id))}
          />
        ) : q.isError ? (
          // Deleted elsewhere meanwhile (or unreadable): said, not silently hidden.
          <Text key={ids[i]} size="sm" c="dimmed">
            {communication.tasks.find((t) => t.id === ids[i])?.title ?? 'タスク'}（削除されたか、読み込めませんでした）
          </Text>
        ) : (
          <Loader key={ids[i]} size="sm" />
        ),
      )}
      <Card withBorder padding="xs">
        <Stack gap="xs">
          <TextInput
            size="md"
            label="新しいタスク"
            value={draft.title}
            onChange={(e) => setDraft({ ...draft, title: e.currentTarget.value })}
            onKeyDown={onEnter(() => void add())}
            error={errors.title}
          />
          <Group gap="xs" grow>
            <TextInput
              type="date"
              size="md"
              label="期限"
              value={draft.deadline}
              onChange={(e) => setDraft({ ...draft, deadline: e.currentTarget.value })}
              error={errors.deadline}
            />
            <Select
              size="md"
              label="担当者"
              data={staffOptions}
              value={staffId}
              onChange={(v) => setDraft({ ...draft, staff_id: v })}
              clearable
              error={errors.staff_id}
            />
          </Group>
          <Button
            variant="light"
            size="md"
            onClick={() => void add()}
            loading={create.isPending}
            disabled={draft.title.trim() === '' || ids.length >= 20}
          >
            タスクを追加
          </Button>
        </Stack>
      </Card>
    </Stack>
  );
}

function TaskRow({
  task,
  staffOptions,
  onDeleted,
}: {
  task: Task;
  staffOptions: StaffOption[];
  onDeleted: () => void;
}) {
  const { api } = useServices();
  const queryClient = useQueryClient();
  const update = useUpdateTask();
  const remove = useDeleteTask();
  const onError = useMutationErrorHandler({ conflictMessage: taskConflict });
  // A 409: someone saved the task meanwhile. The row reloads it (its new version resets the row).
  const failed = (error: unknown) => {
    onError(error);
    if (isApiError(error) && error.status === 409)
      void queryClient.invalidateQueries({ queryKey: taskQueries.detail(api, task.id).queryKey });
  };
  const saved: Draft = { title: task.title, deadline: task.deadline ?? '', staff_id: task.staff?.id ?? null };
  // Reset by the parent's key whenever a save gives the task a new version.
  const [draft, setDraft] = useState<Draft>(saved);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const changed = JSON.stringify(draft) !== JSON.stringify(saved);
  const busy = update.isPending || remove.isPending;

  const save = async (status: Task['status'], values: Draft) => {
    setErrors({});
    try {
      await update.mutateAsync({
        task,
        body: {
          title: values.title,
          deadline: values.deadline || null,
          staff_id: values.staff_id,
          medical_institution_id: task.medical_institution?.id ?? null,
          status,
        },
      });
    } catch (error) {
      const byField = fieldErrorsOf(error);
      if (Object.keys(byField).length > 0) setErrors(byField);
      else failed(error);
    }
  };

  return (
    <Card withBorder padding="xs" data-testid="communication-task">
      <Stack gap="xs">
        <Group gap="xs" wrap="nowrap" align="flex-end">
          <Checkbox
            size="lg"
            mb={8}
            aria-label={`${task.title}を完了にする`}
            checked={task.status === 'finished'}
            disabled={busy}
            // Completing keeps the saved fields: an unsaved edit of the row stays in it, still unsaved.
            onChange={(e) => void save(e.currentTarget.checked ? 'finished' : 'incomplete', saved)}
          />
          <TextInput
            style={{ flex: 1 }}
            size="md"
            label="タスク"
            value={draft.title}
            onChange={(e) => setDraft({ ...draft, title: e.currentTarget.value })}
            onKeyDown={onEnter(() => changed && void save(task.status, draft))}
            error={errors.title}
          />
          <ActionIcon
            variant="subtle"
            color="red"
            size="lg"
            mb={6}
            aria-label={`${task.title}を削除`}
            disabled={busy}
            onClick={() =>
              void remove.mutateAsync(task).then(() => {
                toast.success('タスクを削除しました');
                onDeleted();
              }, failed)
            }
          >
            ×
          </ActionIcon>
        </Group>
        <Group gap="xs" grow>
          <TextInput
            type="date"
            size="md"
            label="期限"
            value={draft.deadline}
            onChange={(e) => setDraft({ ...draft, deadline: e.currentTarget.value })}
            error={errors.deadline}
          />
          <Select
            size="md"
            label="担当者"
            data={staffOptions}
            value={draft.staff_id}
            onChange={(v) => setDraft({ ...draft, staff_id: v })}
            clearable
            error={errors.staff_id}
          />
        </Group>
        {changed && (
          <Group justify="flex-end" gap="xs">
            <Button variant="default" size="xs" onClick={() => setDraft(saved)} disabled={busy}>
              元に戻す
            </Button>
            <Button size="xs" onClick={() => void save(task.status, draft)} loading={update.isPending}>
              タスクを保存
            </Button>
          </Group>
        )}
      </Stack>
    </Card>
  );
}
