import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import {
  endpoints,
  type ActionList,
  type ActionListItem,
  type BulkResult,
  type RunningStatus,
  type UserRef,
} from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { actionListAggregate, type ActionListEvent } from '@renkei/domain';
import { streamId, type EventStore, type RecordedEvent } from '@renkei/event-store';
import { registerEndpoint, type AuthContext } from '@renkei/service-kit';
import { accountRefs } from '../communications/communication-facts.ts';
import { etagOf, revisionIfMatch } from '../shared/command-context.ts';
import { handleCommand, type CommandResult } from '../shared/command-handler.ts';
import { deterministicId } from '../shared/deterministic-id.ts';
import { callerRef } from '../shared/facts.ts';
import { idempotentCreate, type CreateAnswer } from '../shared/idempotency.ts';
import {
  actionListDecider,
  changedCount,
  type ActionListCommand,
  type ActionListState,
} from './action-list.decider.ts';

export interface ActionListRouteDeps {
  db: Database;
  store: EventStore;
}

const stream = (id: string) => streamId(actionListAggregate, id);

function counts(state: ActionListState) {
  let actioned = 0;
  for (const status of state.items.values()) if (status === 'actioned') actioned++;
  return { medical_institution_count: state.items.size, actioned_count: actioned };
}

export function registerActionListRoutes(app: FastifyInstance, deps: ActionListRouteDeps): void {
  const { db, store } = deps;

  /** The ids among `ids` that are institutions of the shared master. */
  async function knownInstitutions(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const { rows } = await sql<{ id: string }>`
      SELECT id FROM ref.medical_institutions WHERE id = ANY(${sql.val([...new Set(ids)])}::uuid[])`.execute(db.kysely);
    return new Set(rows.map((r) => r.id));
  }

  /** The list as answered after a write: its creation (first stored event) and who made it. */
  async function toActionList(
    auth: AuthContext,
    id: string,
    state: ActionListState,
    revision: number,
    first: RecordedEvent | undefined,
  ): Promise<ActionList> {
    let createdBy: UserRef | null = null;
    if (first?.metadata.account_id) {
      const refs = await accountRefs(store, auth.tenantId, [first.metadata.account_id]);
      createdBy = refs.get(first.metadata.account_id) ?? { id: first.metadata.account_id, name: '' };
    }
    return {
      id,
      name: state.name,
      status: state.listStatus,
      ...counts(state),
      created_by: createdBy,
      created_at: (first?.created_at ?? new Date()).toISOString(),
      version: revision,
    };
  }

  registerEndpoint(app, endpoints.createActionList, async ({ body, auth, request, reply }) => {
    const known = await knownInstitutions(body.medical_institution_ids);
    return idempotentCreate(
      db,
      {
        request,
        reply,
        tenantId: auth.tenantId,
        endpoint: endpoints.createActionList.id,
        hashed: body,
        etag: (l: ActionList) => etagOf(l.version),
      },
      async (actionListId, retryable) => {
        const result = await handleCommand(
          { store, auth, requestId: request.id },
          {
            stream: stream(actionListId),
            decider: actionListDecider,
            command: {
              type: 'CreateActionList',
              actionListId,
              name: body.name,
              institutionIds: body.medical_institution_ids,
              knownInstitutionIds: known,
            },
            isNew: true,
            onRace: 'conflict',
            ...(retryable
              ? { eventId: (i: number) => deterministicId(actionListId, 'create', retryable.hash, String(i)) }
              : {}),
          },
        );
        return {
          body: {
            id: actionListId,
            name: result.after.name,
            status: result.after.listStatus,
            ...counts(result.after),
            created_by: await callerRef(store, auth),
            created_at: new Date().toISOString(),
            version: result.revision,
          },
          position: result.position,
        };
      },
    );
  });

  /** A write on the list itself (name, status): a stale If-Match is a 409, as is a lost race. */
  async function writeList(
    auth: AuthContext,
    requestId: string,
    id: string,
    ifMatch: string | string[] | undefined,
    command: ActionListCommand,
  ): Promise<CommandResult<ActionListState, ActionListEvent>> {
    return handleCommand(
      { store, auth, requestId },
      {
        stream: stream(id),
        decider: actionListDecider,
        command,
        ifMatch: revisionIfMatch(ifMatch),
        onRace: 'conflict',
      },
    );
  }

  registerEndpoint(app, endpoints.updateActionList, async ({ params, body, auth, request, reply }) => {
    const result = await writeList(auth, request.id, params.id, request.headers['if-match'], {
      type: 'RenameActionList',
      actionListId: params.id,
      name: body.name,
    });
    if (result.position) reply.position(result.position);
    void reply.header('etag', etagOf(result.revision));
    return toActionList(auth, params.id, result.after, result.revision, result.stored[0]);
  });

  registerEndpoint(app, endpoints.updateActionListStatus, async ({ params, body, auth, request, reply }) => {
    const result = await writeList(auth, request.id, params.id, request.headers['if-match'], {
      type: 'ChangeActionListStatus',
      actionListId: params.id,
      status: body.status,
    });
    if (result.position) reply.position(result.position);
    void reply.header('etag', etagOf(result.revision));
    return toActionList(auth, params.id, result.after, result.revision, result.stored[0]);
  });

  registerEndpoint(app, endpoints.deleteActionList, async ({ params, auth, request, reply }) => {
    const result = await writeList(auth, request.id, params.id, request.headers['if-match'], {
      type: 'DeleteActionList',
      actionListId: params.id,
    });
    if (result.position) reply.position(result.position);
    return null;
  });

  /**
   * A change of the list's items. Each is a set (on, off, marked), so a lost race is decided again
   * on the newer list: what the user asked for still holds, and no If-Match is asked for (colleagues
   * marking other items of the same list must not make each other reload). A POST honours
   * Idempotency-Key (a retry answers the first answer, not a count of 0).
   */
  async function changeItems(
    auth: AuthContext,
    requestId: string,
    id: string,
    command: ActionListCommand,
    retryable: { hash: string } | null,
    operation: string,
  ) {
    return handleCommand(
      { store, auth, requestId },
      {
        stream: stream(id),
        decider: actionListDecider,
        command,
        onRace: 'recompute',
        ...(retryable ? { eventId: (i: number) => deterministicId(id, operation, retryable.hash, String(i)) } : {}),
      },
    );
  }

  registerEndpoint(app, endpoints.addItem, async ({ params, body, auth, request, reply }) => {
    const known = await knownInstitutions([body.medical_institution_id]);
    return idempotentCreate(
      db,
      {
        request,
        reply,
        tenantId: auth.tenantId,
        endpoint: endpoints.addItem.id,
        hashed: { id: params.id, body },
      },
      async (_operationId, retryable) => {
        const result = await changeItems(
          auth,
          request.id,
          params.id,
          {
            type: 'AddActionListItems',
            actionListId: params.id,
            single: true,
            institutionIds: [body.medical_institution_id],
            knownInstitutionIds: known,
          },
          retryable,
          'add-item',
        );
        const { rows } = await sql<{
          id: string;
          name: string;
          address: string;
          tel: string;
          running_status: RunningStatus;
        }>`
          SELECT id, name, address, tel, running_status FROM ref.medical_institutions
           WHERE id = ${body.medical_institution_id}`.execute(db.kysely);
        const m = rows[0]!;
        const item: ActionListItem = {
          medical_institution: {
            id: m.id,
            name: m.name,
            address: m.address,
            tel: m.tel || null,
            running_status: m.running_status,
          },
          status: 'not_actioned',
          updated_by: await callerRef(store, auth),
          updated_at: new Date().toISOString(),
        };
        void reply.header('etag', etagOf(result.revision));
        return { body: item, position: result.position };
      },
    );
  });

  /** The bulk POSTs: one command of the ids, answered with how many changed. */
  function bulkPost(
    endpoint: typeof endpoints.bulkInsertItems | typeof endpoints.bulkDeleteItems,
    operation: string,
    command: (id: string, ids: string[]) => Promise<ActionListCommand>,
  ) {
    registerEndpoint(app, endpoint, async ({ params, body, auth, request, reply }) => {
      const decided = await command(params.id, body.medical_institution_ids);
      return idempotentCreate(
        db,
        { request, reply, tenantId: auth.tenantId, endpoint: endpoint.id, hashed: { id: params.id, body } },
        async (_operationId, retryable): Promise<CreateAnswer<BulkResult>> => {
          const result = await changeItems(auth, request.id, params.id, decided, retryable, operation);
          void reply.header('etag', etagOf(result.revision));
          return { body: { count: changedCount(result.events) }, position: result.position };
        },
      );
    });
  }

  bulkPost(endpoints.bulkInsertItems, 'bulk-insert', async (id, ids) => ({
    type: 'AddActionListItems',
    actionListId: id,
    single: false,
    institutionIds: ids,
    knownInstitutionIds: await knownInstitutions(ids),
  }));

  bulkPost(endpoints.bulkDeleteItems, 'bulk-delete', async (id, ids) => ({
    type: 'RemoveActionListItems',
    actionListId: id,
    institutionIds: ids,
  }));

  registerEndpoint(app, endpoints.updateItemsStatus, async ({ params, body, auth, request, reply }) => {
    const result = await changeItems(
      auth,
      request.id,
      params.id,
      {
        type: 'ChangeActionListItemsStatus',
        actionListId: params.id,
        institutionIds: body.medical_institution_ids,
        status: body.status,
      },
      null,
      'items-status',
    );
    if (result.position) reply.position(result.position);
    void reply.header('etag', etagOf(result.revision));
    return { count: changedCount(result.events) };
  });
}
