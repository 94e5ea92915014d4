import { z } from 'zod';
import { endpoint } from '../core/endpoint.ts';
import {
  Id,
  IdParams,
  IsoDateTime,
  NoContent,
  PageQuery,
  SortDirection,
  paged,
  inputDate,
} from '../core/zod-helpers.ts';
import { UserRef } from '../core/refs.ts';
import { Department } from '../reference-data/reference-data.schemas.ts';
import { RunningStatus } from '../medical-institutions/medical-institution.schemas.ts';

/** Spec §4. */
export const TaskStatus = z.enum(['incomplete', 'finished']);
export type TaskStatus = z.infer<typeof TaskStatus>;

export const TaskMedicalInstitution = z.object({
  id: Id,
  name: z.string(),
  running_status: RunningStatus,
  address: z.string(),
  tel: z.string().nullable(),
  departments: z.array(Department),
});

export const Task = z.object({
  id: Id,
  created_at: IsoDateTime,
  deadline: z.iso.date().nullable(),
  title: z.string(),
  medical_institution: TaskMedicalInstitution.nullable(),
  status: TaskStatus,
  staff: UserRef.nullable(),
  communication_id: Id.nullable(),
  version: z.number().int(),
});
export type Task = z.infer<typeof Task>;

const title = z
  .string()
  .trim()
  .min(1, 'タイトルを入力してください')
  .max(100, 'タイトルは100文字以内で入力してください');
const deadline = inputDate('期限はYYYY-MM-DD形式で入力してください').nullable().default(null);

export const TaskCreateInput = z.object({
  title,
  staff_id: Id.nullable().default(null),
  deadline,
  medical_institution_id: Id.nullable().default(null),
  communication_id: Id.nullable().default(null),
});
export type TaskCreateInput = z.infer<typeof TaskCreateInput>;

export const TaskUpdateInput = z.object({
  title,
  staff_id: Id.nullable().default(null),
  deadline,
  medical_institution_id: Id.nullable().default(null),
  status: TaskStatus,
});
export type TaskUpdateInput = z.infer<typeof TaskUpdateInput>;

export const TaskListQuery = PageQuery.extend({
  status: z.enum(['incomplete', 'finished', 'all']).default('all'),
  sort_by: z.enum(['created_at', 'deadline']).default('created_at'),
  sort: SortDirection.default('desc'),
  medical_institution_id: Id.optional(),
  user_id: Id.optional().describe(
    'Addition to the spec (issue 11: /tasks shows "my tasks" and "all tasks"): the staff member the task is assigned to',
  ),
});
export type TaskListQuery = z.infer<typeof TaskListQuery>;

const t = { area: 'tasks', feature: 'tasks', served: true } as const;

export const taskEndpoints = {
  listTasks: endpoint({
    ...t,
    id: 'tasks.list',
    method: 'GET',
    path: '/tasks',
    service: 'query',
    summary: 'タスク一覧',
    query: TaskListQuery,
    response: paged(Task),
    successStatus: 200,
  }),
  createTask: endpoint({
    ...t,
    id: 'tasks.create',
    method: 'POST',
    path: '/tasks',
    service: 'command',
    summary: 'タスク作成',
    body: TaskCreateInput,
    response: Task,
    successStatus: 201,
  }),
  getTask: endpoint({
    ...t,
    id: 'tasks.get',
    method: 'GET',
    path: '/tasks/{id}',
    service: 'query',
    summary: 'タスク詳細',
    params: IdParams,
    response: Task,
    successStatus: 200,
  }),
  updateTask: endpoint({
    ...t,
    id: 'tasks.update',
    method: 'PUT',
    path: '/tasks/{id}',
    service: 'command',
    summary: 'タスク更新',
    params: IdParams,
    body: TaskUpdateInput,
    response: Task,
    successStatus: 200,
  }),
  deleteTask: endpoint({
    ...t,
    id: 'tasks.delete',
    method: 'DELETE',
    path: '/tasks/{id}',
    service: 'command',
    summary: 'タスク削除',
    params: IdParams,
    response: NoContent,
    successStatus: 204,
  }),
};
