import { randomUUID } from 'node:crypto';
import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  excludeSystemEvents,
  FORWARDS,
  jsonEvent,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError as EsdbStreamNotFoundError,
  WrongExpectedVersionError,
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type JSONType,
} from '@eventstore/db-client';
import { StreamNotFoundError, WrongExpectedRevisionError } from '../errors.ts';
import { comparePositions } from '../position.ts';
import type {
  AppendOutcome,
  AppendResult,
  EventMetadata,
  EventStore,
  ExpectedRevision,
  Position,
  ReadAllResult,
  RecordedEvent,
} from '../types.ts';

type EsdbPosition = { commit: bigint; prepare: bigint };

/**
 * EventStoreDB behind the same interface: streams as-is, our metadata as event metadata, global
 * order = $all (commit, prepare). System events (`$…`) are never handed out.
 */
export function createEventStoreDbStore(url: string): EventStore {
  const client = EventStoreDBClient.connectionString(url);

  function toPosition(p: EsdbPosition | undefined): Position {
    return p ? { primary: p.commit, secondary: p.prepare } : { primary: 0n, secondary: 0n };
  }

  function toRecorded(e: {
    streamId: string;
    id: string;
    revision: bigint;
    type: string;
    created: Date;
    data: unknown;
    metadata: unknown;
    position?: EsdbPosition | undefined;
  }): RecordedEvent {
    return {
      id: e.id,
      stream: e.streamId,
      revision: Number(e.revision),
      position: toPosition(e.position),
      type: e.type,
      data: e.data,
      metadata: e.metadata as EventMetadata,
      created_at: e.created,
    };
  }

  async function readStreamRaw(stream: string): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    try {
      for await (const resolved of client.readStream(stream, { direction: FORWARDS, fromRevision: START })) {
        if (resolved.event) events.push(toRecorded(resolved.event as Parameters<typeof toRecorded>[0]));
      }
    } catch (error) {
      if (error instanceof EsdbStreamNotFoundError) return [];
      throw error;
    }
    return events;
  }

  function esdbExpected(expected: ExpectedRevision): AppendExpectedRevision {
    if (expected === 'any') return ANY;
    if (expected === 'no_stream') return NO_STREAM;
    if (expected === 'stream_exists') return STREAM_EXISTS;
    return BigInt(expected);
  }

  async function readAllPage(from: Position, limit: number, types: readonly string[] | undefined) {
    const events: RecordedEvent[] = [];
    let next = from;
    let cursor: Position = from;
    const fromStart = from.primary === 0n && from.secondary === 0n;
    for (let first = true; events.length < limit; first = false) {
      let scanned = 0;
      const page = client.readAll({
        direction: FORWARDS,
        fromPosition: first && fromStart ? START : { commit: cursor.primary, prepare: cursor.secondary },
        maxCount: limit + 1,
      });
      for await (const resolved of page as AsyncIterable<AllStreamResolvedEvent>) {
        const e = resolved.event;
        if (!e) continue;
        const position = toPosition(e.position);
        // The read starts at (and includes) the cursor: skip what was already seen.
        if (comparePositions(position, cursor) <= 0 && !(first && fromStart)) continue;
        scanned += 1;
        cursor = position;
        if (e.type.startsWith('$') || e.streamId.startsWith('$')) {
          next = position;
          continue;
        }
        if (types && !types.includes(e.type)) {
          next = position;
          continue;
        }
        events.push(toRecorded(e as Parameters<typeof toRecorded>[0]));
        next = position;
        if (events.length >= limit) break;
      }
      if (scanned === 0) break;
    }
    return { events, next };
  }

  const store: EventStore = {
    supportsGuards: false,
    // EventStoreDB appends one stream per call: the streams go side by side, each stream's appends in order.
    async appendMany(appends): Promise<AppendOutcome[]> {
      const outcomes: AppendOutcome[] = new Array(appends.length);
      const byStream = new Map<string, number[]>();
      appends.forEach((a, i) => byStream.set(a.stream, [...(byStream.get(a.stream) ?? []), i]));
      await Promise.all(
        [...byStream.values()].map(async (indexes) => {
          for (const i of indexes) {
            const a = appends[i]!;
            try {
              outcomes[i] = { ok: true, value: await store.append(a.stream, a.events, a) };
            } catch (error) {
              outcomes[i] = { ok: false, error };
            }
          }
        }),
      );
      return outcomes;
    },
    async append(stream, events, options): Promise<AppendResult> {
      if (events.length === 0) throw new Error('append: no events');
      // A guard is SQL in the appending transaction; EventStoreDB has neither.
      if (options.guard) throw new Error('append: EventStoreDB takes no guard (check supportsGuards)');
      const ids = events.map((e) => e.id ?? randomUUID());
      const data = events.map((e, i) =>
        jsonEvent({
          id: ids[i]!,
          type: e.type,
          data: (e.data ?? null) as JSONType,
          metadata: e.metadata as unknown as JSONType,
        }),
      );
      try {
        const result = await client.appendToStream(stream, data, {
          expectedRevision: esdbExpected(options.expectedRevision),
        });
        return { revision: Number(result.nextExpectedRevision), position: toPosition(result.position) };
      } catch (error) {
        if (!(error instanceof WrongExpectedVersionError)) throw error;
        // A retry of an append that went through: answer with the original result.
        const stored = await readStreamRaw(stream);
        const mine = stored.filter((e) => ids.includes(e.id));
        if (mine.length === ids.length) {
          const last = mine[mine.length - 1]!;
          return { revision: last.revision, position: last.position };
        }
        const current = stored.length > 0 ? stored[stored.length - 1]!.revision : null;
        throw new WrongExpectedRevisionError(stream, options.expectedRevision, current);
      }
    },

    async readStream(stream, options) {
      const events = await readStreamRaw(stream);
      if (events.length === 0 || events[0]!.metadata?.tenant_id?.toLowerCase() !== options.tenantId.toLowerCase()) {
        throw new StreamNotFoundError(stream);
      }
      if (!options.types) return events;
      // EventStoreDB filters reads of $all, not of a stream: the events are read and dropped here.
      const types = new Set(options.types);
      const wanted = events.filter((e) => types.has(e.type));
      if (wanted.length === 0) throw new StreamNotFoundError(stream);
      return wanted;
    },

    async readAll(from, options = {}): Promise<ReadAllResult> {
      return readAllPage(from, Math.max(1, Math.min(options.limit ?? 1000, 10_000)), options.types);
    },

    subscribe(from, handler, options = {}) {
      const batchSize = options.batchSize ?? 500;
      const fromStart = from.primary === 0n && from.secondary === 0n;
      const subscription = client.subscribeToAll({
        fromPosition: fromStart ? START : { commit: from.primary, prepare: from.secondary },
        filter: excludeSystemEvents(),
      });
      let stopped = false;
      const loop = (async () => {
        const buffer: RecordedEvent[] = [];
        let flushing: Promise<void> = Promise.resolve();
        const flush = async () => {
          while (buffer.length > 0 && !stopped) {
            const batch = buffer.slice(0, batchSize);
            try {
              await handler(batch, batch[batch.length - 1]!.position);
              buffer.splice(0, batch.length);
            } catch (error) {
              options.onError?.(error);
              await new Promise((resolve) => setTimeout(resolve, 500));
            }
          }
        };
        for await (const resolved of subscription as AsyncIterable<AllStreamResolvedEvent>) {
          if (stopped) break;
          const e = resolved.event;
          if (!e) continue;
          const recorded = toRecorded(e as Parameters<typeof toRecorded>[0]);
          // The subscription starts at (and includes) `from`.
          if (comparePositions(recorded.position, from) <= 0) continue;
          if (options.types && !options.types.includes(recorded.type)) continue;
          buffer.push(recorded);
          flushing = flushing.then(flush);
          if (buffer.length >= batchSize * 4) await flushing;
        }
        await flushing;
      })().catch((error: unknown) => {
        if (!stopped) options.onError?.(error);
      });
      return {
        async stop() {
          stopped = true;
          await subscription.unsubscribe();
          await loop;
        },
      };
    },

    async headPosition() {
      const newest = client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 100 });
      for await (const resolved of newest as AsyncIterable<AllStreamResolvedEvent>) {
        const e = resolved.event;
        if (e && !e.type.startsWith('$') && !e.streamId.startsWith('$')) return toPosition(e.position);
      }
      return { primary: 0n, secondary: 0n };
    },

    async close() {
      await client.dispose();
    },
  };
  return store;
}
