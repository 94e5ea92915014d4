import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { HttpError, endpoints, type Communication, type CommunicationComment, type UserRef } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { communicationAggregate, parseCommunicationEvent } from '@renkei/domain';
import type { FileStorage } from '@renkei/file-storage';
import { streamId, type EventStore, type RecordedEvent } from '@renkei/event-store';
import { registerEndpoint } from '@renkei/service-kit';
import { etagOf, readIfMatch } from '../shared/command-context.ts';
import { handleCommand } from '../shared/command-handler.ts';
import { deterministicId } from '../shared/deterministic-id.ts';
import { assertInstitutionExists } from '../shared/facts.ts';
import { idempotentCreate } from '../shared/idempotency.ts';
import { accountRefs, communicationFacts } from './communication-facts.ts';
import { importedBeginning } from './imported-communications.ts';
import { recordTaskOrigins } from '../tasks/task-origins.ts';
import {
  communicationDecider,
  findComment,
  type CommunicationComment as StateComment,
  type CommunicationState,
} from './communication.decider.ts';
import { attachmentFacts, linkAttachments, linkedVocs } from '../uploaded-files/communication-attachments.ts';

export interface CommunicationRouteDeps {
  db: Database;
  store: EventStore;
  /** Where attachments are kept; their links are signed with `fileUrlKey`. */
  storage: FileStorage;
  fileUrlKey: () => Buffer;
}

/** If-Match on one comment's number of edits (two tabs of its author saving it at once). */
function commentIfMatch(header: string | string[] | undefined, commentId: string) {
  const expected = readIfMatch(header);
  return expected === null
    ? null
    : {
        matches: (state: CommunicationState) => findComment(state, commentId)?.version === expected,
        message: 'このコメントは更新されています。最新の内容を読み込んでから保存してください。',
      };
}

/** If-Match on the record's number of saves (comments and likes do not make an edit stale). */
function versionIfMatch(header: string | string[] | undefined) {
  const expected = readIfMatch(header);
  return expected === null
    ? null
    : {
        matches: (state: CommunicationState) => state.version === expected,
        message: 'この活動記録は他のユーザーによって更新されています。最新の内容を読み込んでから保存してください。',
      };
}

const saveTypes = new Set(['CommunicationCreated', 'CommunicationImportAdopted', 'CommunicationUpdated']);
/** When a save was made: an imported record's first save is its import's. */
const saveTime = (e: RecordedEvent, state: CommunicationState) =>
  e.type === 'CommunicationImportAdopted' && state.importedAt ? new Date(state.importedAt) : e.created_at;

/** The record as the API answers it, from its folded state and the stored events' times. */
function toCommunication(
  state: CommunicationState,
  stored: readonly RecordedEvent[],
  institutionName: string,
  users: Map<string, UserRef>,
  now: Date,
  extras: Pick<Communication, 'attachments' | 'vocs'> = { attachments: [], vocs: [] },
): Communication {
  const f = state.fields!;
  const ref = (id: string | null) => (id === null ? null : (users.get(id) ?? { id, name: '' }));
  const commentTimes = new Map<string, Date>();
  for (const e of stored) {
    const event = parseCommunicationEvent(e);
    if (event.type === 'CommunicationCommentAdded') commentTimes.set(event.data.comment_id, e.created_at);
  }
  const saves = stored.filter((e) => saveTypes.has(e.type));
  return {
    id: f.communication_id,
    communication_type: f.communication_type,
    acted_date: f.acted_date,
    category: f.category,
    purpose: f.purpose,
    story: f.story,
    email: null,
    attachments: extras.attachments,
    event_name: f.event_name,
    memo: f.memo,
    other_memo: f.other_memo,
    user: ref(f.user_id),
    person_in_charge_hospital: f.person_in_charge_hospital,
    attendee: f.attendee,
    is_doctor_attended: f.is_doctor_attended,
    medical_institution: { id: f.medical_institution_id, name: institutionName },
    tasks: state.tasks.map((t) => ({
      id: t.task_id,
      title: t.title,
      status: 'incomplete',
      deadline: t.deadline,
      staff: ref(t.staff_id),
    })),
    comments: state.comments.map((c) => toComment(c, commentTimes.get(c.comment_id) ?? now, users)),
    likes: state.likes.map((id) => ({ user: ref(id)! })),
    label_values: f.label_values,
    vocs: extras.vocs,
    created_at: (state.importedAt ? new Date(state.importedAt) : (saves[0]?.created_at ?? now)).toISOString(),
    updated_at: (saves.length > state.version ? saveTime(saves.at(-1)!, state) : now).toISOString(),
    version: state.version,
  };
}

const toComment = (c: StateComment, createdAt: Date, users: Map<string, UserRef>): CommunicationComment => ({
  id: c.comment_id,
  user: users.get(c.user_id) ?? { id: c.user_id, name: '' },
  created_date: createdAt.toISOString(),
  comment: c.comment,
  version: c.version,
});

const peopleOf = (state: CommunicationState): string[] => [
  state.fields!.user_id,
  ...state.tasks.flatMap((t) => (t.staff_id ? [t.staff_id] : [])),
  ...state.comments.map((c) => c.user_id),
  ...state.likes,
];

export function registerCommunicationRoutes(app: FastifyInstance, deps: CommunicationRouteDeps): void {
  const { db, store, storage } = deps;

  /** The answer after a command: names of the institution and of everyone the record shows. */
  async function answer(
    tenantId: string,
    result: { after: CommunicationState; stored: RecordedEvent[]; revision: number },
    known: Map<string, UserRef> = new Map(),
  ): Promise<Communication> {
    const missing = peopleOf(result.after).filter((id) => !known.has(id));
    const communicationId = result.after.fields!.communication_id;
    const [institution, users, attachments, vocs] = await Promise.all([
      assertInstitutionExists(db, result.after.fields!.medical_institution_id),
      accountRefs(store, tenantId, missing),
      linkAttachments(storage, deps.fileUrlKey(), tenantId, result.after, result.revision),
      linkedVocs(db, store, tenantId, communicationId),
    ]);
    return toCommunication(result.after, result.stored, institution.name, new Map([...known, ...users]), new Date(), {
      attachments,
      vocs,
    });
  }

  registerEndpoint(app, endpoints.createForMedicalInstitution, async ({ params, body, auth, request, reply }) => {
    const institution = await assertInstitutionExists(db, params.id);
    return idempotentCreate(
      db,
      {
        request,
        reply,
        tenantId: auth.tenantId,
        endpoint: endpoints.createForMedicalInstitution.id,
        hashed: { medical_institution_id: params.id, body },
        etag: (c: Communication) => etagOf(c.version),
      },
      async (communicationId, retryable) => {
        const people = [body.user_id ?? auth.accountId, ...body.tasks.flatMap((t) => (t.staff_id ? [t.staff_id] : []))];
        const facts = {
          ...(await communicationFacts(store, auth.tenantId, people)),
          files: await attachmentFacts(storage, auth.tenantId, body.attachment_ids),
        };
        // Under an Idempotency-Key a retry derives the same task ids.
        const taskIds = body.tasks.map((_, i) =>
          retryable ? deterministicId(communicationId, 'task', String(i)) : randomUUID(),
        );
        // Where each task was born, for its later changes; a row whose record never got stored names
        // a stream without that task, which reads as not found.
        await recordTaskOrigins(db, auth.tenantId, communicationId, taskIds);
        let n = 0;
        const result = await handleCommand(
          { store, auth, requestId: request.id },
          {
            stream: streamId(communicationAggregate, communicationId),
            decider: communicationDecider,
            command: {
              type: 'CreateCommunication',
              communicationId,
              medicalInstitutionId: params.id,
              callerId: auth.accountId,
              input: body,
              facts,
              newTaskId: () => taskIds[n++]!,
            },
            isNew: true,
            onRace: 'conflict',
            ...(retryable
              ? { eventId: (i: number) => deterministicId(communicationId, 'create', retryable.hash, String(i)) }
              : {}),
          },
        );
        const now = new Date();
        const attachments = await linkAttachments(
          storage,
          deps.fileUrlKey(),
          auth.tenantId,
          result.after,
          result.revision,
        );
        return {
          body: toCommunication(result.after, [], institution.name, facts.accounts, now, { attachments, vocs: [] }),
          position: result.position,
        };
      },
    );
  });

  registerEndpoint(app, endpoints.updateCommunication, async ({ params, body, auth, request, reply }) => {
    const people = [body.user_id ?? auth.accountId];
    const facts = {
      ...(await communicationFacts(store, auth.tenantId, people)),
      files: await attachmentFacts(storage, auth.tenantId, body.attachment_ids),
    };
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: streamId(communicationAggregate, params.id),
        adopt: () => importedBeginning(db, store, auth.tenantId, params.id),
        decider: communicationDecider,
        command: {
          type: 'UpdateCommunication',
          communicationId: params.id,
          callerId: auth.accountId,
          input: body,
          facts,
        },
        ifMatch: versionIfMatch(request.headers['if-match']),
        onRace: 'conflict',
      },
    );
    if (result.position) reply.position(result.position);
    void reply.header('etag', etagOf(result.after.version));
    return answer(auth.tenantId, result, facts.accounts);
  });

  registerEndpoint(app, endpoints.deleteCommunication, async ({ params, auth, request, reply }) => {
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: streamId(communicationAggregate, params.id),
        adopt: () => importedBeginning(db, store, auth.tenantId, params.id),
        decider: communicationDecider,
        command: { type: 'DeleteCommunication', communicationId: params.id },
        ifMatch: versionIfMatch(request.headers['if-match']),
        onRace: 'conflict',
      },
    );
    if (result.position) reply.position(result.position);
    // Its files are released and go a day later (the worker's reactor does the same from the event).
    if (result.position)
      await linkAttachments(storage, deps.fileUrlKey(), auth.tenantId, result.after, result.revision);
    return null;
  });

  registerEndpoint(app, endpoints.createComment, async ({ params, body, auth, request, reply }) =>
    idempotentCreate(
      db,
      {
        request,
        reply,
        tenantId: auth.tenantId,
        endpoint: endpoints.createComment.id,
        // The key names one comment on one communication.
        hashed: { communication_id: params.communication_id, body },
        etag: (c: CommunicationComment) => etagOf(c.version),
      },
      async (commentId, retryable) => {
        const result = await handleCommand(
          { store, auth, requestId: request.id },
          {
            stream: streamId(communicationAggregate, params.communication_id),
            adopt: () => importedBeginning(db, store, auth.tenantId, params.communication_id),
            decider: communicationDecider,
            command: {
              type: 'AddComment',
              communicationId: params.communication_id,
              commentId,
              userId: auth.accountId,
              comment: body.comment,
            },
            // Comments of others in between change nothing about this one.
            onRace: 'recompute',
            ...(retryable
              ? { eventId: (i: number) => deterministicId(commentId, 'comment', retryable.hash, String(i)) }
              : {}),
          },
        );
        const users = await accountRefs(store, auth.tenantId, [auth.accountId]);
        return {
          body: toComment(
            { comment_id: commentId, user_id: auth.accountId, comment: body.comment, version: 0 },
            new Date(),
            users,
          ),
          position: result.position,
        };
      },
    ),
  );

  /** Only the author edits or deletes a comment: anyone else is refused before anything is decided. */
  const authorOnly =
    <C>(commentId: string, accountId: string, command: C) =>
    (state: CommunicationState): C => {
      const comment = findComment(state, commentId);
      if (comment && comment.user_id !== accountId) throw new HttpError(403);
      return command;
    };

  registerEndpoint(app, endpoints.updateComment, async ({ params, body, auth, request, reply }) => {
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: streamId(communicationAggregate, params.communication_id),
        adopt: () => importedBeginning(db, store, auth.tenantId, params.communication_id),
        decider: communicationDecider,
        command: authorOnly(params.id, auth.accountId, {
          type: 'EditComment' as const,
          communicationId: params.communication_id,
          commentId: params.id,
          comment: body.comment,
        }),
        ifMatch: commentIfMatch(request.headers['if-match'], params.id),
        onRace: 'recompute',
      },
    );
    if (result.position) reply.position(result.position);
    // The decider refuses an edit of a missing comment, so the edited one is in the state.
    const edited = findComment(result.after, params.id)!;
    void reply.header('etag', etagOf(edited.version));
    const createdAt =
      result.stored.find((e) => {
        const event = parseCommunicationEvent(e);
        return event.type === 'CommunicationCommentAdded' && event.data.comment_id === params.id;
      })?.created_at ?? new Date();
    const users = await accountRefs(store, auth.tenantId, [auth.accountId]);
    return toComment(edited, createdAt, users);
  });

  registerEndpoint(app, endpoints.deleteComment, async ({ params, auth, request, reply }) => {
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: streamId(communicationAggregate, params.communication_id),
        adopt: () => importedBeginning(db, store, auth.tenantId, params.communication_id),
        decider: communicationDecider,
        command: authorOnly(params.id, auth.accountId, {
          type: 'DeleteComment' as const,
          communicationId: params.communication_id,
          commentId: params.id,
        }),
        ifMatch: commentIfMatch(request.headers['if-match'], params.id),
        onRace: 'recompute',
      },
    );
    if (result.position) reply.position(result.position);
    return null;
  });

  registerEndpoint(app, endpoints.like, async ({ params, auth, request, reply }) => {
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: streamId(communicationAggregate, params.communication_id),
        adopt: () => importedBeginning(db, store, auth.tenantId, params.communication_id),
        decider: communicationDecider,
        command: { type: 'Like', communicationId: params.communication_id, userId: auth.accountId },
        onRace: 'recompute',
      },
    );
    if (result.position) reply.position(result.position);
    const users = await accountRefs(store, auth.tenantId, result.after.likes);
    return result.after.likes.map((id) => ({ user: users.get(id) ?? { id, name: '' } }));
  });

  registerEndpoint(app, endpoints.unlike, async ({ params, auth, request, reply }) => {
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: streamId(communicationAggregate, params.communication_id),
        adopt: () => importedBeginning(db, store, auth.tenantId, params.communication_id),
        decider: communicationDecider,
        command: { type: 'Unlike', communicationId: params.communication_id, userId: auth.accountId },
        onRace: 'recompute',
      },
    );
    if (result.position) reply.position(result.position);
    return null;
  });
}
