import { queryOptions } from '@tanstack/react-query';
import type { Task, TaskListQuery } from '@renkei/contracts';
import type { z } from 'zod';
import type { ApiClient } from '../../api/api-client.ts';
import { useApiMutation } from '../../api/useApiMutation.ts';

export type TaskListParams = z.input<typeof TaskListQuery>;

export const taskQueries = {
  all: ['tasks'] as const,
  list: (api: ApiClient, params: TaskListParams) =>
    queryOptions({
      queryKey: [...taskQueries.all, 'list', params] as const,
      queryFn: ({ signal }) => api.listTasks({ query: params, signal }),
    }),
};

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
