import type { TaskCreateInput, TaskUpdateInput } from '@renkei/contracts';
import { parseTaskEvent, stableJson, type TaskFields } from '@renkei/domain';
import { invalid, notFound, type Decider, type Decision } from '../shared/decider.ts';

export type TaskEvent = ReturnType<typeof parseTaskEvent>;

export interface TaskState {
  status: 'absent' | 'active' | 'deleted';
  fields: TaskFields | null;
  /** Saves of the task (0 at its birth): its `version`. */
  version: number;
}

/** Facts from other streams: the task's birth in a communication, the tenant's accounts it names. */
export interface TaskFacts {
  /** The task as its communication's create entered it; null for a standalone task. */
  born: TaskFields | null;
  accountIds: ReadonlySet<string>;
}

export type TaskCommand =
  | { type: 'CreateTask'; taskId: string; input: TaskCreateInput; facts: TaskFacts }
  | { type: 'UpdateTask'; taskId: string; input: TaskUpdateInput; facts: TaskFacts }
  | { type: 'DeleteTask'; taskId: string; facts: TaskFacts };

function evolve(state: TaskState, event: TaskEvent): TaskState {
  switch (event.type) {
    case 'TaskCreated':
      return { status: 'active', fields: event.data, version: 0 };
    case 'TaskUpdated':
      // A first update of a task born in a communication: that birth was version 0.
      return { status: 'active', fields: event.data, version: state.status === 'absent' ? 1 : state.version + 1 };
    case 'TaskDeleted':
      return { ...state, status: 'deleted' };
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** The task as it stands: its own stream, or its birth in a communication when the stream is empty. */
export function currentTask(state: TaskState, born: TaskFields | null): TaskState {
  if (state.status === 'absent' && born) return { status: 'active', fields: born, version: 0 };
  return state;
}

function staffProblem(staffId: string | null, facts: TaskFacts) {
  return staffId !== null && !facts.accountIds.has(staffId)
    ? invalid({ field: 'staff_id', message: '担当者が見つかりません' })
    : null;
}

function decide(stored: TaskState, command: TaskCommand): Decision<TaskEvent> {
  const state = currentTask(stored, command.facts.born);
  switch (command.type) {
    case 'CreateTask': {
      if (state.status !== 'absent') return invalid({ field: 'id', message: 'このタスクは既に登録されています' });
      const problem = staffProblem(command.input.staff_id, command.facts);
      if (problem) return problem;
      const { input } = command;
      return [
        {
          type: 'TaskCreated',
          data: {
            task_id: command.taskId,
            title: input.title,
            staff_id: input.staff_id,
            deadline: input.deadline,
            medical_institution_id: input.medical_institution_id,
            communication_id: input.communication_id,
            status: 'incomplete',
          },
        },
      ];
    }
    case 'UpdateTask': {
      if (state.status !== 'active') return notFound();
      const problem = staffProblem(command.input.staff_id, command.facts);
      if (problem) return problem;
      const { input } = command;
      const fields: TaskFields = {
        ...state.fields!,
        title: input.title,
        staff_id: input.staff_id,
        deadline: input.deadline,
        medical_institution_id: input.medical_institution_id,
        status: input.status,
      };
      if (stableJson(fields) === stableJson(state.fields)) return [];
      return [{ type: 'TaskUpdated', data: fields }];
    }
    case 'DeleteTask':
      if (state.status !== 'active') return notFound();
      return [
        { type: 'TaskDeleted', data: { task_id: command.taskId, communication_id: state.fields!.communication_id } },
      ];
    default: {
      const never: never = command;
      return never;
    }
  }
}

export const taskDecider: Decider<TaskState, TaskCommand, TaskEvent> = {
  initialState: () => ({ status: 'absent', fields: null, version: 0 }),
  evolve,
  decide,
  parse: parseTaskEvent,
};
