import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { HttpError, endpoints, type Tag } from '@renkei/contracts';
import { createBatcher, preparedStatement, refusedByServer, settle, type Database, type Settled } from '@renkei/db';
import { normalizeTagName, tagAggregate, type TagEvent } from '@renkei/domain';
import {
  AppendGuardRefusedError,
  StreamNotFoundError,
  type AppendGuard,
  formatPosition,
  type AppendResult,
  streamId,
  type EventStore,
  type Position,
  type RecordedEvent,
} from '@renkei/event-store';
import { registerEndpoint, type AuthContext } from '@renkei/service-kit';
import { etagOf, eventMetadata, readIfMatch } from '../shared/command-context.ts';
import type { TenantLimitsCache } from '../shared/tenant-limits.ts';
import { deterministicId } from '../shared/deterministic-id.ts';
import {
  claimIdempotencyKey,
  idempotencyKeyHeader,
  readIdempotencyKey,
  requestHash,
  releaseIdempotencyKey,
  storeIdempotentResponse,
} from '../shared/idempotency.ts';
import { decide, evolve, foldTag, initialTagState, type TagState } from './tag.decider.ts';

export interface TagRouteDeps {
  db: Database;
  store: EventStore;
  tenantLimits: TenantLimitsCache;
}

/** A reservation older than this whose tag never came to exist was left by a crashed request. */
const STALE_RESERVATION_MS = 60_000;

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const duplicateName = () =>
  new HttpError(422, undefined, { errors: [{ field: 'name', message: 'このタグ名は既に登録されています。' }] });

const overLimit = (max: number) =>
  new HttpError(422, `タグは${max}件まで登録できます。`, {
    errors: [{ field: 'name', message: `タグの登録数が上限（${max}件）に達しています。` }],
  });

export function registerTagRoutes(app: FastifyInstance, deps: TagRouteDeps): void {
  const { db, store, tenantLimits } = deps;
  const kysely = db.kysely;

  async function loadTag(auth: AuthContext, tagId: string): Promise<{ state: TagState; revision: number }> {
    let events: RecordedEvent[];
    try {
      events = await store.readStream(streamId(tagAggregate, tagId), { tenantId: auth.tenantId });
    } catch (error) {
      if (error instanceof StreamNotFoundError) throw new HttpError(404);
      throw error;
    }
    const state = foldTag(events as unknown as TagEvent[]);
    if (state.status !== 'active') throw new HttpError(404);
    return { state, revision: events[events.length - 1]!.revision };
  }

  type Reservation =
    { kind: 'ok' } | { kind: 'held'; tagId: string; reservedAt: Date } | { kind: 'limit'; max: number };

  interface ReserveCall {
    tenantId: string;
    normalizedName: string;
    tagId: string;
    limit: number | null;
  }
  type ReservationRow = { kind: 'ok' | 'held' | 'limit'; holder: string; held_since: Date };

  const toReservation = (call: ReserveCall, row: ReservationRow): Reservation => {
    if (row.kind === 'ok') return { kind: 'ok' };
    if (row.kind === 'limit') return { kind: 'limit', max: call.limit! };
    return { kind: 'held', tagId: row.holder, reservedAt: new Date(row.held_since) };
  };

  const reserveStatement = preparedStatement(
    db,
    'cmd_reserve_tag_names_v1',
    'SELECT item, kind, holder::text, held_since FROM cmd.reserve_tag_names($1::uuid[], $2::text[], $3::uuid[], $4::int[])',
  );

  /** Reserves in one statement, in the order the function needs: by tenant, then name. */
  async function reserveTogether(calls: ReserveCall[]): Promise<Reservation[]> {
    const order = calls
      .map((call, index) => ({ call, index }))
      .sort(
        (a, b) =>
          compareText(a.call.tenantId, b.call.tenantId) || compareText(a.call.normalizedName, b.call.normalizedName),
      );
    const { rows } = await db.pool.query<ReservationRow & { item: number }>(
      reserveStatement([
        order.map((o) => o.call.tenantId),
        order.map((o) => o.call.normalizedName),
        order.map((o) => o.call.tagId),
        order.map((o) => o.call.limit),
      ]),
    );
    const reservations: Reservation[] = new Array(calls.length);
    for (const row of rows) {
      const { call, index } = order[row.item - 1]!;
      reservations[index] = toReservation(call, row);
    }
    return reservations;
  }

  async function reserveBatch(calls: ReserveCall[]): Promise<Settled<Reservation>[]> {
    try {
      return (await reserveTogether(calls)).map((value) => ({ ok: true, value }));
    } catch (error) {
      // Refused (a deadlock with a lone reservation, say): nothing was reserved, so one by one.
      if (!refusedByServer(error) || calls.length === 1) throw error;
      const outcomes: Settled<Reservation>[] = [];
      for (const call of calls) outcomes.push(await settle(async () => (await reserveTogether([call]))[0]!));
      return outcomes;
    }
  }

  /**
   * Reserves a normalised name for a tag (counting against the tenant's limit when it has one).
   * Returns the holder when another tag has the name. Concurrent reservations share a round trip.
   */
  const reserveName = createBatcher({ maxInFlight: 1, maxBatch: 64, run: reserveBatch });

  const releaseStatement = preparedStatement(
    db,
    'cmd_release_tag_name_v1',
    'DELETE FROM cmd.tag_names WHERE tenant_id = $1 AND normalized_name = $2 AND tag_id = $3',
  );
  const releaseName = async (tenantId: string, normalizedName: string, tagId: string) => {
    await db.pool.query(releaseStatement([tenantId, normalizedName, tagId]));
  };

  /** A name held by a tag that was deleted, or never created by a request that died, is free again. */
  async function holderIsGone(tenantId: string, holder: { tagId: string; reservedAt: Date }): Promise<boolean> {
    try {
      const events = await store.readStream(streamId(tagAggregate, holder.tagId), { tenantId });
      return foldTag(events as unknown as TagEvent[]).status === 'deleted';
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
      return Date.now() - holder.reservedAt.getTime() > STALE_RESERVATION_MS;
    }
  }

  /** A name held by a tag that is gone is taken over once; otherwise a held name is a 422. */
  /**
   * What to do about a name another tag holds: a holder that is gone is released so the caller may
   * try once more (true); otherwise the name is taken (422).
   */
  async function releaseIfHolderGone(
    tenantId: string,
    normalizedName: string,
    holder: { tagId: string; reservedAt: Date },
    attempt: number,
  ): Promise<true> {
    if (attempt === 0 && (await holderIsGone(tenantId, holder))) {
      await releaseName(tenantId, normalizedName, holder.tagId);
      return true;
    }
    throw duplicateName();
  }

  async function reserveOrFail(tenantId: string, normalizedName: string, tagId: string, limit: number | null) {
    for (let attempt = 0; attempt < 2; attempt++) {
      const result = await reserveName({ tenantId, normalizedName, tagId, limit });
      if (result.kind === 'ok') return;
      if (result.kind === 'limit') throw overLimit(result.max);
      await releaseIfHolderGone(tenantId, normalizedName, result, attempt);
    }
    throw duplicateName();
  }

  interface NamedAppend {
    tenantId: string;
    tagId: string;
    /** The normalised name to hold, or null to hold none (a delete, or an edit that keeps the name). */
    name: string | null;
    /** The normalised name to free once the events are stored. */
    release: string | null;
    limit: number | null;
    /** A retry with the same Idempotency-Key may be appending this very tag: its name stays reserved. */
    keepReservationOnFailure: boolean;
    append: (guard?: AppendGuard) => Promise<AppendResult>;
  }

  /**
   * Appends a tag's events holding `name` and freeing `release`. On Postgres the names are a guard of
   * the append (cmd.tag_name_guard): held and freed in the append's own transaction. A store without
   * guards (EventStoreDB) reserves first, appends, then frees, and releases the reservation when the
   * append fails.
   */
  async function appendNamed(options: NamedAppend): Promise<AppendResult> {
    if (!store.supportsGuards) return reserveAndAppend(options);
    const { tenantId, tagId, name, release, limit } = options;
    if (name === null && release === null) return options.append();
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        return await options.append({
          fn: 'cmd.tag_name_guard',
          argument: { tenant: tenantId, name, tag: tagId, limit, release },
        });
      } catch (error) {
        if (!(error instanceof AppendGuardRefusedError)) throw error;
        const refusal = error.detail as { kind: 'held' | 'limit'; holder: string; held_since: string };
        if (refusal.kind === 'limit') throw overLimit(limit!);
        await releaseIfHolderGone(
          tenantId,
          name!,
          { tagId: refusal.holder, reservedAt: new Date(refusal.held_since) },
          attempt,
        );
      }
    }
    throw duplicateName();
  }

  async function reserveAndAppend(options: NamedAppend): Promise<AppendResult> {
    const { tenantId, tagId, name, release } = options;
    if (name !== null) await reserveOrFail(tenantId, name, tagId, options.limit);
    let appended: AppendResult;
    try {
      appended = await options.append();
    } catch (error) {
      if (name !== null && !options.keepReservationOnFailure) await releaseName(tenantId, name, tagId);
      throw error;
    }
    if (release !== null) await releaseName(tenantId, release, tagId);
    return appended;
  }

  /** The append of an edit or delete: the tag's events with this request's metadata, optionally guarded. */
  const appendTagEvents =
    (auth: AuthContext, requestId: string, tagId: string, events: TagEvent[], expectedRevision: number) =>
    (guard?: AppendGuard) =>
      store.append(
        streamId(tagAggregate, tagId),
        events.map((e) => ({ ...e, metadata: eventMetadata(auth, requestId) })),
        { expectedRevision, guard },
      );

  async function institutionCount(tenantId: string, tagId: string): Promise<number> {
    // The count is the query side's; a tag not projected yet has no institutions.
    const { rows } = await sql<{ medical_institution_count: number }>`
      SELECT medical_institution_count FROM rm.tags WHERE tenant_id = ${tenantId} AND id = ${tagId}`
      .execute(kysely)
      .catch((error: { code?: string }) => {
        if (error.code === '42P01') return { rows: [] as { medical_institution_count: number }[] };
        throw error;
      });
    return rows[0]?.medical_institution_count ?? 0;
  }

  const toTag = (tagId: string, state: TagState, version: number, count: number): Tag => ({
    id: tagId,
    name: state.name,
    description: state.description,
    medical_institution_count: count,
    group_name: state.groupName,
    version,
  });

  async function createTag(
    auth: AuthContext,
    tagId: string,
    body: { name: string; description: string; group_name: string | null },
    requestId: string,
    retryable: boolean,
  ): Promise<{ tag: Tag; position: Position }> {
    const events = decide(initialTagState, {
      type: 'CreateTag',
      tagId,
      name: body.name,
      description: body.description,
      groupName: body.group_name,
    });
    const metadata = eventMetadata(auth, requestId);
    const result = await appendNamed({
      tenantId: auth.tenantId,
      tagId,
      name: normalizeTagName(body.name),
      release: null,
      limit: (await tenantLimits.get(auth.tenantId))?.max_tag_count ?? null,
      keepReservationOnFailure: retryable,
      append: (guard) =>
        store.append(
          streamId(tagAggregate, tagId),
          // With an Idempotency-Key, ids from the tag and the body: only a retry of the very same
          // request is the same append. Without one the tag id is new, no retry can name it, and the
          // store's own ids spare it looking them up.
          events.map((e, i) => ({
            ...e,
            ...(retryable ? { id: deterministicId(tagId, 'create', requestHash(body), String(i)) } : {}),
            metadata,
          })),
          { expectedRevision: 'no_stream', guard },
        ),
    });
    // A new tag is on no institution yet.
    return { tag: toTag(tagId, foldTag(events), result.revision, 0), position: result.position };
  }

  registerEndpoint(app, endpoints.createTag, async ({ body, auth, request, reply }) => {
    const key = readIdempotencyKey(request.headers[idempotencyKeyHeader]);
    let tagId: string = randomUUID();
    const claim = key ? { tenantId: auth.tenantId, endpoint: endpoints.createTag.id, key } : null;
    if (claim) {
      // The same key always names the same tag, so a retry appends the very same event.
      tagId = deterministicId(auth.tenantId, endpoints.createTag.id, claim.key);
      const claimed = await claimIdempotencyKey(kysely, { ...claim, hash: requestHash(body), resourceId: tagId });
      if (claimed.kind === 'retry' && claimed.stored) {
        const stored = claimed.stored.body as Tag;
        if (claimed.stored.position) void reply.header('x-position', claimed.stored.position);
        void reply.header('etag', etagOf(stored.version));
        return stored;
      }
    }
    let tag: Tag;
    let position: Position;
    try {
      ({ tag, position } = await createTag(auth, tagId, body, request.id, claim !== null));
    } catch (error) {
      if (claim) await releaseIdempotencyKey(kysely, claim);
      throw error;
    }
    if (claim) await storeIdempotentResponse(kysely, claim, { body: tag, position: formatPosition(position) });
    reply.position(position);
    void reply.header('etag', etagOf(tag.version));
    return tag;
  });

  registerEndpoint(app, endpoints.updateTag, async ({ params, body, auth, request, reply }) => {
    const ifMatch = readIfMatch(request.headers['if-match']);
    const { state, revision } = await loadTag(auth, params.id);
    if (ifMatch !== null && ifMatch !== revision) throw new HttpError(409);
    const events = decide(state, {
      type: 'UpdateTag',
      tagId: params.id,
      name: body.name,
      description: body.description,
      groupName: body.group_name,
    });
    if (events.length === 0) {
      void reply.header('etag', etagOf(revision));
      return toTag(params.id, state, revision, await institutionCount(auth.tenantId, params.id));
    }
    const next = events.reduce(evolve, state);
    const renamed = next.normalizedName !== state.normalizedName;
    const result = await appendNamed({
      tenantId: auth.tenantId,
      tagId: params.id,
      name: renamed ? next.normalizedName : null,
      release: renamed ? state.normalizedName : null,
      // A rename is not a new tag: the limit does not apply.
      limit: null,
      keepReservationOnFailure: false,
      append: appendTagEvents(auth, request.id, params.id, events, ifMatch ?? revision),
    });
    reply.position(result.position);
    void reply.header('etag', etagOf(result.revision));
    return toTag(params.id, next, result.revision, await institutionCount(auth.tenantId, params.id));
  });

  registerEndpoint(app, endpoints.deleteTag, async ({ params, auth, request, reply }) => {
    const ifMatch = readIfMatch(request.headers['if-match']);
    const { state, revision } = await loadTag(auth, params.id);
    if (ifMatch !== null && ifMatch !== revision) throw new HttpError(409);
    const events = decide(state, { type: 'DeleteTag', tagId: params.id });
    const result = await appendNamed({
      tenantId: auth.tenantId,
      tagId: params.id,
      name: null,
      release: state.normalizedName,
      limit: null,
      keepReservationOnFailure: false,
      append: appendTagEvents(auth, request.id, params.id, events, ifMatch ?? revision),
    });
    reply.position(result.position);
    return null;
  });
}
