import type { Task } from '@renkei/contracts';
import { useRecordDialogs } from '../../ui/useRecordDialogs.ts';
import type { TaskFormOutput } from './components/TaskFormModal.tsx';
import { useCreateTask, useDeleteTask, useUpdateTask } from './tasks.queries.ts';
import { useTaskErrorHandler } from './useTaskErrorHandler.ts';

/**
 * The add/edit dialog and delete confirmation of a task list: each write over the task's version
 * (If-Match); a 409 or a task deleted meanwhile reloads the list (`useTaskErrorHandler`).
 */
export function useTaskDialogs() {
  const create = useCreateTask();
  const update = useUpdateTask();
  const remove = useDeleteTask();
  const dialogs = useRecordDialogs<Task, TaskFormOutput>({
    // A new task starts incomplete: the create call has no status.
    create: {
      mutateAsync: ({ title, deadline, staff_id, medical_institution_id }) =>
        create.mutateAsync({ title, deadline, staff_id, medical_institution_id }),
    },
    update: { mutateAsync: ({ id, version, body }) => update.mutateAsync({ task: { id, version }, body }) },
    remove,
    messages: { created: 'タスクを追加しました', updated: 'タスクを更新しました', deleted: 'タスクを削除しました' },
    onError: useTaskErrorHandler(),
  });
  return { ...dialogs, deletePending: remove.isPending };
}

export type TaskDialogsState = ReturnType<typeof useTaskDialogs>;
