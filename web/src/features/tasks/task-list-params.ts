import { enumParam, intParam, isUuid, type SearchInput } from '../../app/search-params.ts';
import type { TaskListParams } from './tasks.queries.ts';

/** The filters a task list keeps in its URL (/tasks and /crms/{id}/tasks alike). */
export interface TaskListFilters {
  page: number;
  status: 'incomplete' | 'finished' | 'all';
  sort_by: 'created_at' | 'deadline';
  /** Absent: the natural direction of `sort_by` (deadlines soonest first, creation newest first). */
  sort?: 'asc' | 'desc';
}

/** Whose tasks /tasks lists: the signed-in user's, or everyone's. */
export type TaskAssignee = 'mine' | 'all';

/** /tasks' URL: the list's filters, whose tasks, and one institution's only when picked. */
export interface TasksParams extends TaskListFilters {
  assignee: TaskAssignee;
  medical_institution_id?: string;
}

const taskListPerPage = 20;

/** The natural direction of a sort key: deadlines read soonest first, creation dates newest first. */
export const defaultSortOf = (sortBy: TaskListFilters['sort_by']) => (sortBy === 'deadline' ? 'asc' : 'desc');

/** The URL's filters; each falls back alone, so an old or hand-written link still opens. */
export function taskListFiltersOf(search: SearchInput): TaskListFilters {
  const sort = enumParam(search.sort, ['asc', 'desc'], undefined);
  return {
    page: intParam(search.page, 1, Number.MAX_SAFE_INTEGER, 1),
    status: enumParam(search.status, ['incomplete', 'finished', 'all'], 'incomplete'),
    sort_by: enumParam(search.sort_by, ['created_at', 'deadline'], 'deadline'),
    ...(sort ? { sort } : {}),
  };
}

/** /tasks' URL; an institution id that is not one (a mangled link) is dropped rather than refused. */
export function tasksParamsOf(search: SearchInput): TasksParams {
  return {
    ...taskListFiltersOf(search),
    assignee: enumParam(search.assignee, ['mine', 'all'], 'mine'),
    ...(isUuid(search.medical_institution_id) ? { medical_institution_id: search.medical_institution_id } : {}),
  };
}

/** The list call's scope of /tasks: the signed-in user's tasks or the tenant's, of one institution if picked. */
export function tasksScopeOf(params: Pick<TasksParams, 'assignee' | 'medical_institution_id'>, currentUserId: string) {
  return {
    ...(params.assignee === 'mine' ? { user_id: currentUserId } : {}),
    ...(params.medical_institution_id ? { medical_institution_id: params.medical_institution_id } : {}),
  };
}

/**
 * The list call of the filters within a scope (one staff member's, one institution's): one definition
 * for the route's loader and the page.
 */
export function taskListQueryOf(
  filters: TaskListFilters,
  scope: { user_id?: string; medical_institution_id?: string } = {},
): TaskListParams {
  return {
    page: filters.page,
    status: filters.status,
    sort_by: filters.sort_by,
    ...(scope.user_id ? { user_id: scope.user_id } : {}),
    ...(scope.medical_institution_id ? { medical_institution_id: scope.medical_institution_id } : {}),
    per_page: taskListPerPage,
    sort: filters.sort ?? defaultSortOf(filters.sort_by),
  };
}

/** A task still to do whose deadline (a calendar date in Japan) has passed. */
export function isOverdue(task: { status: string; deadline: string | null }, today: string): boolean {
  return task.status === 'incomplete' && task.deadline !== null && task.deadline < today;
}
