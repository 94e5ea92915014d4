import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { HttpError, endpoints, listVersion, type UserRef, type Voc, type VocInput } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { vocAggregate, vocGroupsAggregate, type VocFields } from '@renkei/domain';
import { comparePositions, streamId, type EventStore, type Position } from '@renkei/event-store';
import { registerEndpoint, type AuthContext } from '@renkei/service-kit';
import { etagOf, revisionIfMatch } from '../shared/command-context.ts';
import { handleCommand } from '../shared/command-handler.ts';
import { deterministicId } from '../shared/deterministic-id.ts';
import { readState } from '../shared/facts.ts';
import { idempotentCreate } from '../shared/idempotency.ts';
import { accountRefs } from '../communications/communication-facts.ts';
import { readCommunication } from '../communications/imported-communications.ts';
import { vocDecider, type VocFacts } from './voc.decider.ts';
import { vocGroupsDecider } from './voc-group.decider.ts';
import { settleVocIndex, vocsMaybeInGroups, vocsMaybeLinkedTo, widenVocIndex } from './voc-index.ts';

export interface VocRouteDeps {
  db: Database;
  store: EventStore;
}

function toVoc(f: VocFields, version: number, updatedAt: Date, users: Map<string, UserRef>): Voc {
  return {
    id: f.voc_id,
    reported_date: f.reported_date,
    medical_institution_id: f.medical_institution_id,
    title: f.title,
    status: f.status,
    detail_text: f.detail_text,
    action_text: f.action_text,
    priority: f.priority,
    user: f.user_id ? (users.get(f.user_id) ?? { id: f.user_id, name: '' }) : null,
    voc_group_id: f.voc_group_id,
    communication_ids: f.communication_ids,
    updated_at: updatedAt.toISOString(),
    version,
  };
}

/**
 * The group list's version is `listVersion` of its ids and names (as phase masters): the GET answers
 * it as ETag and the browser can derive it from the list it shows.
 */
function listIfMatch(header: string | string[] | undefined) {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return null;
  const expected = value.replace(/^W\//, '').replace(/^"|"$/g, '');
  return {
    matches: (current: readonly { id: string; name: string }[]) => listVersion(current) === expected,
    message: '他のユーザーがVOCグループを変更しました。再読み込みしてからやり直してください。',
  };
}

const later = (a: Position | null, b: Position | null) => (a === null || (b && comparePositions(b, a) > 0) ? b : a);

export function registerVocRoutes(app: FastifyInstance, deps: VocRouteDeps): void {
  const { db, store } = deps;

  const readVoc = (tenantId: string, id: string) => readState(store, tenantId, streamId(vocAggregate, id), vocDecider);
  const readGroups = (tenantId: string) =>
    readState(store, tenantId, streamId(vocGroupsAggregate, tenantId), vocGroupsDecider);

  async function institutionExists(id: string) {
    const { rows } = await sql<{ id: string }>`SELECT id FROM ref.medical_institutions WHERE id = ${id}`.execute(
      db.kysely,
    );
    return rows.length > 0;
  }

  /** What the input is checked against: its staff member, the tenant's groups, the communications it names. */
  async function facts(auth: AuthContext, input: VocInput): Promise<VocFacts & { users: Map<string, UserRef> }> {
    const communicationIds = [...new Set(input.communication_ids)];
    const [known, users, groups, communications] = await Promise.all([
      institutionExists(input.medical_institution_id),
      accountRefs(store, auth.tenantId, [input.user_id ?? auth.accountId]),
      readGroups(auth.tenantId),
      Promise.all(
        communicationIds.map(async (id) => {
          const { state } = await readCommunication(db, store, auth.tenantId, id);
          return state.status === 'active'
            ? ([[id, { medical_institution_id: state.fields!.medical_institution_id }]] as const)
            : [];
        }),
      ),
    ]);
    return {
      users,
      institutionExists: known,
      accountIds: new Set(users.keys()),
      groupIds: new Set(groups.state.map((g) => g.id)),
      communications: new Map(communications.flat()),
    };
  }

  async function usersOf(auth: AuthContext, f: VocFields, known: Map<string, UserRef>) {
    if (!f.user_id || known.has(f.user_id)) return known;
    return new Map([...known, ...(await accountRefs(store, auth.tenantId, [f.user_id]))]);
  }

  registerEndpoint(app, endpoints.createVoc, async ({ body, auth, request, reply }) => {
    const vocFacts = await facts(auth, body);
    return idempotentCreate(
      db,
      {
        request,
        reply,
        tenantId: auth.tenantId,
        endpoint: endpoints.createVoc.id,
        hashed: body,
        etag: (v: Voc) => etagOf(v.version),
      },
      async (vocId, retryable) => {
        await widenVocIndex(
          db,
          auth.tenantId,
          vocId,
          body.voc_group_id ? [body.voc_group_id] : [],
          body.communication_ids,
        );
        const result = await handleCommand(
          { store, auth, requestId: request.id },
          {
            stream: streamId(vocAggregate, vocId),
            decider: vocDecider,
            command: { type: 'CreateVoc', vocId, callerId: auth.accountId, input: body, facts: vocFacts },
            isNew: true,
            onRace: 'conflict',
            ...(retryable
              ? { eventId: (i: number) => deterministicId(vocId, 'create', retryable.hash, String(i)) }
              : {}),
          },
        );
        const fields = result.after.fields!;
        await settleVocIndex(db, auth.tenantId, vocId, fields);
        return { body: toVoc(fields, 0, new Date(), vocFacts.users), position: result.position };
      },
    );
  });

  registerEndpoint(app, endpoints.updateVoc, async ({ params, body, auth, request, reply }) => {
    const vocFacts = await facts(auth, body);
    await widenVocIndex(
      db,
      auth.tenantId,
      params.id,
      body.voc_group_id ? [body.voc_group_id] : [],
      body.communication_ids,
    );
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: streamId(vocAggregate, params.id),
        decider: vocDecider,
        command: { type: 'UpdateVoc', vocId: params.id, callerId: auth.accountId, input: body, facts: vocFacts },
        ifMatch: revisionIfMatch(request.headers['if-match']),
        onRace: 'conflict',
      },
    );
    const fields = result.after.fields!;
    await settleVocIndex(db, auth.tenantId, params.id, fields);
    if (result.position) reply.position(result.position);
    void reply.header('etag', etagOf(result.revision));
    const updatedAt = result.position ? new Date() : (result.stored.at(-1)?.created_at ?? new Date());
    return toVoc(fields, result.revision, updatedAt, await usersOf(auth, fields, vocFacts.users));
  });

  registerEndpoint(app, endpoints.deleteVoc, async ({ params, auth, request, reply }) => {
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: streamId(vocAggregate, params.id),
        decider: vocDecider,
        command: { type: 'DeleteVoc', vocId: params.id },
        ifMatch: revisionIfMatch(request.headers['if-match']),
        onRace: 'conflict',
      },
    );
    await settleVocIndex(db, auth.tenantId, params.id, null);
    if (result.position) reply.position(result.position);
    return null;
  });

  registerEndpoint(app, endpoints.replaceVocGroups, async ({ body, auth, request, reply }) => {
    const { state: current } = await readGroups(auth.tenantId);
    const kept = new Set(body.voc_groups.flatMap((g) => (g.id ? [g.id] : [])));
    const removed = current.map((g) => g.id).filter((id) => !kept.has(id));
    // Live VOCs per removed group, from the VOCs' own streams (the index only names candidates).
    const inUse = new Map<string, number>();
    const candidates = await vocsMaybeInGroups(db, auth.tenantId, removed);
    const states = await Promise.all(candidates.map((id) => readVoc(auth.tenantId, id)));
    for (const { state } of states) {
      const group = state.status === 'active' ? state.fields!.voc_group_id : null;
      if (group && removed.includes(group)) inUse.set(group, (inUse.get(group) ?? 0) + 1);
    }
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: streamId(vocGroupsAggregate, auth.tenantId),
        decider: vocGroupsDecider,
        command: { groups: body.voc_groups, inUse, newId: randomUUID },
        ifMatch: listIfMatch(request.headers['if-match']),
        // The usage was counted for the list read above: a list changed meanwhile is a 409.
        onRace: 'conflict',
      },
    );
    if (result.position) reply.position(result.position);
    void reply.header('etag', `"${listVersion(result.after)}"`);
    return result.after;
  });

  registerEndpoint(app, endpoints.setVocs, async ({ params, body, auth, request, reply }) => {
    const communicationId = params.communication_id;
    const { state: communication } = await readCommunication(db, store, auth.tenantId, communicationId);
    if (communication.status !== 'active') throw new HttpError(404);
    const institution = communication.fields!.medical_institution_id;
    const wanted = [...new Set(body.voc_ids)];
    const wantedStates = await Promise.all(wanted.map((id) => readVoc(auth.tenantId, id)));
    const errors = body.voc_ids.flatMap((id, i) => {
      const state = wantedStates[wanted.indexOf(id)]!.state;
      if (state.status !== 'active') return [{ field: `voc_ids.${i}`, message: 'VOCが見つかりません' }];
      if (state.fields!.medical_institution_id !== institution)
        return [{ field: `voc_ids.${i}`, message: '別の医療機関のVOCは紐づけられません' }];
      return [];
    });
    if (errors.length > 0) throw new HttpError(422, undefined, { errors });
    const unlink = (await vocsMaybeLinkedTo(db, auth.tenantId, communicationId)).filter((id) => !wanted.includes(id));
    // One VOC stream per link: each append stands alone, and sending the same list again finishes
    // what a failure left half done (docs/decisions.md).
    let position: Position | null = null;
    const linked: Voc[] = [];
    for (const [vocId, link] of [
      ...wanted.map((id) => [id, true] as const),
      ...unlink.map((id) => [id, false] as const),
    ]) {
      if (link) await widenVocIndex(db, auth.tenantId, vocId, [], [communicationId]);
      try {
        const result = await handleCommand(
          { store, auth, requestId: request.id },
          {
            stream: streamId(vocAggregate, vocId),
            decider: vocDecider,
            command: { type: 'LinkCommunication', vocId, communicationId, linked: link },
            // Adding or removing one id commutes with any other write of the VOC.
            onRace: 'recompute',
          },
        );
        position = later(position, result.position);
        await settleVocIndex(db, auth.tenantId, vocId, result.after.status === 'active' ? result.after.fields : null);
        if (link) linked.push(toVoc(result.after.fields!, result.revision, new Date(), new Map()));
      } catch (error) {
        // A candidate that is gone meanwhile links nothing to unlink.
        if (link || !(error instanceof HttpError) || error.status !== 404) throw error;
      }
    }
    if (position) reply.position(position);
    return linked.map((v) => ({ id: v.id, title: v.title, status: v.status, priority: v.priority }));
  });
}
