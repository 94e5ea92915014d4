import { HttpError } from '@renkei/contracts';
import { createBatcher, preparedStatement, refusedByServer, settle, type Database, type Settled } from '@renkei/db';
import { parseTagEvent, tagAggregate } from '@renkei/domain';
import {
  AppendGuardRefusedError,
  StreamNotFoundError,
  streamId,
  type AppendGuard,
  type AppendResult,
  type EventStore,
} from '@renkei/event-store';
import { foldTag } from './tag.decider.ts';

/** A reservation older than this whose tag never came to exist was left by a crashed request. */
const STALE_RESERVATION_MS = 60_000;

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const duplicateName = () =>
  new HttpError(422, undefined, { errors: [{ field: 'name', message: 'このタグ名は既に登録されています。' }] });

const overLimit = (max: number) =>
  new HttpError(422, `タグは${max}件まで登録できます。`, {
    errors: [{ field: 'name', message: `タグの登録数が上限（${max}件）に達しています。` }],
  });

export interface NamedAppend {
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
 * Tag names are unique per tenant (normalised) and count against the tenant's `max_tag_count`: held
 * in `cmd.tag_names`. On Postgres the names are a guard of the append (cmd.tag_name_guard): held and
 * freed in the append's own transaction, one statement and one commit per create. A store without
 * guards (EventStoreDB) reserves first (batched), appends, then frees, and releases the reservation
 * when the append fails. See docs/decisions.md, "Command write path".
 */
export function createTagNames(
  db: Database,
  store: EventStore,
): { appendNamed(options: NamedAppend): Promise<AppendResult> } {
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
      return foldTag(events.map(parseTagEvent)).status === 'deleted';
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
      return Date.now() - holder.reservedAt.getTime() > STALE_RESERVATION_MS;
    }
  }

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

  return { appendNamed };
}
