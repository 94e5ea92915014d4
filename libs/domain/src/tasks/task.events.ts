import { z } from 'zod';
import { eventParser } from '../event-union.ts';

/**
 * Tasks of a tenant: stream `task-<uuid>`. A task entered with a communication is born in that
 * record's `CommunicationCreated` (one append with the record: all or nothing); its own stream then
 * starts with its first `TaskUpdated` or `TaskDeleted`. A standalone task starts with `TaskCreated`.
 */
export const taskAggregate = 'task';

const uuid = z.string().uuid();

export const TaskFields = z.object({
  task_id: uuid,
  title: z.string(),
  staff_id: uuid.nullable(),
  deadline: z.string().nullable(),
  medical_institution_id: uuid.nullable(),
  communication_id: uuid.nullable(),
  status: z.enum(['incomplete', 'finished']),
});
export type TaskFields = z.infer<typeof TaskFields>;

export const TaskDeleted = z.object({ task_id: uuid, communication_id: uuid.nullable() });
export type TaskDeleted = z.infer<typeof TaskDeleted>;

export const taskEventSchemas = { TaskCreated: TaskFields, TaskUpdated: TaskFields, TaskDeleted } as const;

/** A stored event of a task stream as its typed union; anything else throws. */
export const parseTaskEvent = eventParser(taskAggregate, taskEventSchemas);
