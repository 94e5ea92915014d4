import { enumParam, intParam, type SearchInput } from '../../app/search-params.ts';
import type { TaskListParams } from './tasks.queries.ts';

/** The filters a task list keeps in its URL (/tasks and /crms/{id}/tasks alike). */
export interface TaskListFilters {
  page: number;
  status: 'incomplete' | 'finished' | 'all';
  sort_by: 'created_at' | 'deadline';
}

/** Whose tasks /tasks lists: the signed-in user's, or everyone's. */
export type TaskAssignee = 'mine' | 'all';

const taskListPerPage = 20;

/** The URL's filters; each falls back alone, so an old or hand-written link still opens. */
export function taskListFiltersOf(search: SearchInput): TaskListFilters {
  return {
    page: intParam(search.page, 1, Number.MAX_SAFE_INTEGER, 1),
    status: enumParam(search.status, ['incomplete', 'finished', 'all'], 'incomplete'),
    sort_by: enumParam(search.sort_by, ['created_at', 'deadline'], 'deadline'),
  };
}

/**
 * The list call of the filters within a scope (one staff member's, one institution's): one definition
 * for the route's loader and the page. Deadlines read soonest first; creation dates newest first.
 */
export function taskListQueryOf(
  filters: TaskListFilters,
  scope: { user_id?: string; medical_institution_id?: string } = {},
): TaskListParams {
  return {
    ...filters,
    ...(scope.user_id ? { user_id: scope.user_id } : {}),
    ...(scope.medical_institution_id ? { medical_institution_id: scope.medical_institution_id } : {}),
    per_page: taskListPerPage,
    sort: filters.sort_by === 'deadline' ? 'asc' : 'desc',
  };
}

/** A task still to do whose deadline (a calendar date in Japan) has passed. */
export function isOverdue(task: { status: string; deadline: string | null }, today: string): boolean {
  return task.status === 'incomplete' && task.deadline !== null && task.deadline < today;
}
