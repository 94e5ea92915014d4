import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { HttpError, endpoints, type Task } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { taskAggregate, type TaskFields } from '@renkei/domain';
import { streamId, type EventStore } from '@renkei/event-store';
import { departments, type RunningStatus } from '@renkei/institution-master';
import { registerEndpoint, type AuthContext } from '@renkei/service-kit';
import { etagOf, readIfMatch } from '../shared/command-context.ts';
import { handleCommand } from '../shared/command-handler.ts';
import { deterministicId } from '../shared/deterministic-id.ts';
import { idempotentCreate } from '../shared/idempotency.ts';
import { accountRefs } from '../communications/communication-facts.ts';
import { readCommunication } from '../communications/imported-communications.ts';
import { currentTask, taskDecider, type TaskFacts, type TaskState } from './task.decider.ts';
import { taskOrigin } from './task-origins.ts';

export interface TaskRouteDeps {
  db: Database;
  store: EventStore;
}

const departmentById = new Map(departments.map((d) => [d.id, d]));
const fieldError = (field: string, message: string) => new HttpError(422, undefined, { errors: [{ field, message }] });

/** If-Match on the task's saves; a task born in a communication and never changed is version 0. */
function versionIfMatch(header: string | string[] | undefined) {
  const expected = readIfMatch(header);
  return expected === null
    ? null
    : { matches: (state: TaskState) => (state.status === 'absent' ? 0 : state.version) === expected };
}

export function registerTaskRoutes(app: FastifyInstance, deps: TaskRouteDeps): void {
  const { db, store } = deps;

  async function institutionOf(id: string | null): Promise<Task['medical_institution']> {
    if (id === null) return null;
    const { rows } = await sql<{
      id: string;
      name: string;
      running_status: RunningStatus;
      address: string;
      tel: string;
      department_ids: number[];
    }>`SELECT id, name, running_status, address, tel, department_ids FROM ref.medical_institutions WHERE id = ${id}`.execute(
      db.kysely,
    );
    const r = rows[0];
    if (!r) return null;
    return {
      id: r.id,
      name: r.name,
      running_status: r.running_status,
      address: r.address,
      tel: r.tel || null,
      departments: r.department_ids.flatMap((d) => {
        const found = departmentById.get(d);
        return found ? [{ id: String(found.id).padStart(2, '0'), name: found.name }] : [];
      }),
    };
  }

  async function toTask(auth: AuthContext, f: TaskFields, version: number, createdAt: Date): Promise<Task> {
    const [institution, staff] = await Promise.all([
      institutionOf(f.medical_institution_id),
      accountRefs(store, auth.tenantId, f.staff_id ? [f.staff_id] : []),
    ]);
    return {
      id: f.task_id,
      created_at: createdAt.toISOString(),
      deadline: f.deadline,
      title: f.title,
      medical_institution: institution,
      status: f.status,
      staff: f.staff_id ? (staff.get(f.staff_id) ?? { id: f.staff_id, name: '' }) : null,
      communication_id: f.communication_id,
      version,
    };
  }

  /** The birth of a task entered with a communication (from that record's stream), and when it was. */
  async function birthOf(auth: AuthContext, taskId: string): Promise<{ born: TaskFields | null; at: Date | null }> {
    const origin = await taskOrigin(db, auth.tenantId, taskId);
    if (!origin) return { born: null, at: null };
    const { state, events } = await readCommunication(db, store, auth.tenantId, origin);
    const task = state.tasks.find((t) => t.task_id === taskId);
    if (!task || !state.fields) return { born: null, at: null };
    return {
      born: {
        ...task,
        medical_institution_id: state.fields.medical_institution_id,
        // The link goes with a deleted record, as on the read side.
        communication_id: state.status === 'active' ? origin : null,
        status: 'incomplete',
      },
      at: events[0]!.created_at,
    };
  }

  async function facts(auth: AuthContext, taskId: string, staffId: string | null) {
    const [birth, accounts] = await Promise.all([
      birthOf(auth, taskId),
      accountRefs(store, auth.tenantId, staffId ? [staffId] : []),
    ]);
    return { birth, facts: { born: birth.born, accountIds: new Set(accounts.keys()) } satisfies TaskFacts };
  }

  async function checkInstitution(id: string | null) {
    if (id !== null && !(await institutionOf(id)))
      throw fieldError('medical_institution_id', '医療機関が見つかりません');
  }

  registerEndpoint(app, endpoints.createTask, async ({ body, auth, request, reply }) => {
    await checkInstitution(body.medical_institution_id);
    if (body.communication_id) {
      const { state } = await readCommunication(db, store, auth.tenantId, body.communication_id);
      if (state.status !== 'active') throw fieldError('communication_id', '活動記録が見つかりません');
    }
    return idempotentCreate(
      db,
      {
        request,
        reply,
        tenantId: auth.tenantId,
        endpoint: endpoints.createTask.id,
        hashed: body,
        etag: (t: Task) => etagOf(t.version),
      },
      async (taskId, retryable) => {
        const accounts = await accountRefs(store, auth.tenantId, body.staff_id ? [body.staff_id] : []);
        const result = await handleCommand(
          { store, auth, requestId: request.id },
          {
            stream: streamId(taskAggregate, taskId),
            decider: taskDecider,
            command: {
              type: 'CreateTask',
              taskId,
              input: body,
              facts: { born: null, accountIds: new Set(accounts.keys()) },
            },
            isNew: true,
            onRace: 'conflict',
            ...(retryable
              ? { eventId: (i: number) => deterministicId(taskId, 'create', retryable.hash, String(i)) }
              : {}),
          },
        );
        return { body: await toTask(auth, result.after.fields!, 0, new Date()), position: result.position };
      },
    );
  });

  registerEndpoint(app, endpoints.updateTask, async ({ params, body, auth, request, reply }) => {
    await checkInstitution(body.medical_institution_id);
    const { birth, facts: taskFacts } = await facts(auth, params.id, body.staff_id);
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: streamId(taskAggregate, params.id),
        decider: taskDecider,
        command: { type: 'UpdateTask', taskId: params.id, input: body, facts: taskFacts },
        ifMatch: versionIfMatch(request.headers['if-match']),
        onRace: 'conflict',
      },
    );
    if (result.position) reply.position(result.position);
    const after = currentTask(result.after, taskFacts.born);
    void reply.header('etag', etagOf(after.version));
    const createdAt = birth.at ?? result.stored[0]?.created_at ?? new Date();
    return toTask(auth, after.fields!, after.version, createdAt);
  });

  registerEndpoint(app, endpoints.deleteTask, async ({ params, auth, request, reply }) => {
    const { facts: taskFacts } = await facts(auth, params.id, null);
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: streamId(taskAggregate, params.id),
        decider: taskDecider,
        command: { type: 'DeleteTask', taskId: params.id, facts: taskFacts },
        ifMatch: versionIfMatch(request.headers['if-match']),
        onRace: 'conflict',
      },
    );
    if (result.position) reply.position(result.position);
    return null;
  });
}
