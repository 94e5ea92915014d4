import { describe, expect, it } from 'vitest';
import { taskListFiltersOf, taskListQueryOf, tasksParamsOf, tasksScopeOf } from './task-list-params.ts';
import { testId } from './testing.ts';

describe("/tasks' URL", () => {
  it('keeps a picked institution and a chosen direction', () => {
    expect(
      tasksParamsOf({ assignee: 'all', medical_institution_id: testId(9), sort_by: 'created_at', sort: 'asc' }),
    ).toEqual({
      page: 1,
      status: 'incomplete',
      sort_by: 'created_at',
      sort: 'asc',
      assignee: 'all',
      medical_institution_id: testId(9),
    });
  });

  it('drops what is not an id or a direction, each alone, so a mangled link still opens', () => {
    expect(tasksParamsOf({ medical_institution_id: '9; drop', sort: 'sideways', status: 'finished' })).toEqual({
      page: 1,
      status: 'finished',
      sort_by: 'deadline',
      assignee: 'mine',
    });
    expect(taskListFiltersOf({})).not.toHaveProperty('sort');
  });

  it('asks the list call for my tasks of the institution, in the direction chosen or the key’s own', () => {
    const params = tasksParamsOf({ medical_institution_id: testId(9) });
    expect(taskListQueryOf(params, tasksScopeOf(params, testId(30)))).toEqual({
      page: 1,
      per_page: 20,
      status: 'incomplete',
      sort_by: 'deadline',
      sort: 'asc',
      user_id: testId(30),
      medical_institution_id: testId(9),
    });
    expect(taskListQueryOf({ ...params, sort_by: 'created_at' })).toMatchObject({ sort: 'desc' });
    expect(taskListQueryOf({ ...params, sort: 'desc' })).toMatchObject({ sort_by: 'deadline', sort: 'desc' });
  });
});
