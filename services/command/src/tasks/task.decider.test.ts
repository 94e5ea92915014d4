import { describe, it } from 'vitest';
import { TaskCreateInput, TaskUpdateInput } from '@renkei/contracts';
import type { TaskFields } from '@renkei/domain';
import { invalid, notFound } from '../shared/decider.ts';
import { given } from '../shared/given-when-then.ts';
import { taskDecider, type TaskFacts } from './task.decider.ts';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const [taskId, staff, communication, institution] = [id(1), id(2), id(3), id(4)];
const facts = (born: TaskFields | null = null): TaskFacts => ({ born, accountIds: new Set([staff]) });
const born: TaskFields = {
  task_id: taskId,
  title: '資料送付',
  staff_id: staff,
  deadline: '2026-04-07',
  medical_institution_id: institution,
  communication_id: communication,
  status: 'incomplete',
};
const finish = TaskUpdateInput.parse({ ...born, status: 'finished' });

describe('task decider', () => {
  it('creates a standalone task, refusing staff of another tenant', () => {
    given(taskDecider)
      .when({
        type: 'CreateTask',
        taskId,
        input: TaskCreateInput.parse({ title: '電話する', staff_id: staff }),
        facts: facts(),
      })
      .then([
        {
          type: 'TaskCreated',
          data: {
            task_id: taskId,
            title: '電話する',
            staff_id: staff,
            deadline: null,
            medical_institution_id: null,
            communication_id: null,
            status: 'incomplete',
          },
        },
      ]);
    given(taskDecider)
      .when({
        type: 'CreateTask',
        taskId,
        input: TaskCreateInput.parse({ title: 'x', staff_id: id(9) }),
        facts: facts(),
      })
      .thenRejected(invalid({ field: 'staff_id', message: '担当者が見つかりません' }));
  });

  it('completes a task born in a communication, keeping its link', () => {
    given(taskDecider)
      .when({ type: 'UpdateTask', taskId, input: finish, facts: facts(born) })
      .then([{ type: 'TaskUpdated', data: { ...born, status: 'finished' } }]);
    given(taskDecider, [{ type: 'TaskUpdated', data: { ...born, status: 'finished' } }])
      .when({ type: 'UpdateTask', taskId, input: finish, facts: facts(born) })
      .then([]);
  });

  it('answers not found for a task that exists nowhere or is deleted', () => {
    given(taskDecider).when({ type: 'UpdateTask', taskId, input: finish, facts: facts() }).thenRejected(notFound());
    given(taskDecider, [{ type: 'TaskDeleted', data: { task_id: taskId, communication_id: communication } }])
      .when({ type: 'DeleteTask', taskId, facts: facts(born) })
      .thenRejected(notFound());
  });
});
