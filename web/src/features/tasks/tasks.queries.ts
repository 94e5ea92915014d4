import { queryOptions } from '@tanstack/react-query';
import type { Task, TaskCreateInput, TaskListQuery, TaskUpdateInput } from '@renkei/contracts';
import type { z } from 'zod';
import type { ApiClient } from '../../api/api-client.ts';
import { useApiMutation } from '../../api/useApiMutation.ts';

export type TaskListParams = z.input<typeof TaskListQuery>;

/** A 409 on a task: someone saved or deleted it since it was read; the list is read again. */
export const taskConflictMessage = 'このタスクは他の人が先に更新しました。最新の内容を読み込みました。';

export const taskQueries = {
  all: ['tasks'] as const,
  list: (api: ApiClient, params: TaskListParams) =>
    queryOptions({
      queryKey: [...taskQueries.all, 'list', params] as const,
      queryFn: ({ signal }) => api.listTasks({ query: params, signal }),
    }),
  detail: (api: ApiClient, id: string) =>
    queryOptions({
      queryKey: [...taskQueries.all, 'detail', id] as const,
      queryFn: ({ signal }) => api.getTask({ params: { id }, signal }),
    }),
};

// The communications timeline shows each record's tasks.
const listsAndTimelines = [[...taskQueries.all, 'list'], ['communications']] as const;

export type TaskCreateValues = z.input<typeof TaskCreateInput>;

export const useCreateTask = () =>
  useApiMutation((api, body: TaskCreateValues) => api.createTask({ body }), listsAndTimelines);

export type TaskUpdateValues = z.input<typeof TaskUpdateInput>;

/** What a write needs of the task it changes: which one, and the version it was read at. */
type TaskRef = Pick<Task, 'id' | 'version'>;

/** Saves a task over the version it was read at (If-Match): a stale save is a 409. */
export const useUpdateTask = () =>
  useApiMutation(
    (api, { task, body }: { task: TaskRef; body: TaskUpdateValues }) =>
      api.updateTask({ params: { id: task.id }, body, ifMatch: task.version }),
    [taskQueries.all, ['communications']],
  );

/** The deleted task's own detail is not refetched (it would answer 404): its screen drops it. */
export const useDeleteTask = () =>
  useApiMutation(
    (api, task: TaskRef) => api.deleteTask({ params: { id: task.id }, ifMatch: task.version }),
    listsAndTimelines,
  );

/** Completes (or reopens) a task, keeping everything else as it is. */
export const useSetTaskStatus = () =>
  useApiMutation(
    (api, { task, status }: { task: Task; status: Task['status'] }) =>
      api.updateTask({
        params: { id: task.id },
        body: {
          title: task.title,
          staff_id: task.staff?.id ?? null,
          deadline: task.deadline,
          medical_institution_id: task.medical_institution?.id ?? null,
          status,
        },
        ifMatch: task.version,
      }),
    // The communications timeline shows each record's tasks.
    [taskQueries.all, ['communications']],
  );
