import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, openDatabase, type Database } from '@renkei/db';
import { AppendGuardRefusedError, StreamNotFoundError, WrongExpectedRevisionError } from '../errors.ts';
import { newEventMetadata } from '../metadata.ts';
import { streamId } from '../stream-id.ts';
import type { AppendResult, NewEvent } from '../types.ts';
import { createPostgresEventStore } from './postgres-event-store.ts';

const engines: [string, () => Promise<Database & { cleanup(): Promise<void> }>][] = [
  [
    'Postgres',
    async () => {
      const db = await createTestDatabase({ poolMax: 8 });
      return { ...db, cleanup: () => db.close() };
    },
  ],
  [
    'embedded PGlite',
    async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-es-batch-'));
      const db = await openDatabase({ dataDir });
      return {
        ...db,
        async cleanup() {
          await db.close();
          fs.rmSync(dataDir, { recursive: true, force: true });
        },
      };
    },
  ],
];

const settled = <T>(promises: Promise<T>[]) => Promise.allSettled(promises);
const sameTransaction = (results: AppendResult[]) => {
  const counts = new Map<bigint, number>();
  for (const r of results) counts.set(r.position.primary, (counts.get(r.position.primary) ?? 0) + 1);
  return Math.max(...counts.values());
};

describe.each(engines)('Postgres event store group commit on %s', (_name, open) => {
  it('commits concurrent appends together and answers each as if it had been sent alone', async () => {
    const db = await open();
    try {
      const store = await createPostgresEventStore(db, { maxBatchesInFlight: 1 });
      const tenant = randomUUID();
      const ev = (type: string, id?: string): NewEvent => ({
        ...(id ? { id } : {}),
        type,
        data: { type },
        metadata: newEventMetadata(tenant),
      });
      const contested = streamId('batch', randomUUID());
      const existing = streamId('batch', randomUUID());
      const foreign = streamId('batch', randomUUID());
      const retriedId = randomUUID();
      await store.append(existing, [ev('Created')], { expectedRevision: 'no_stream' });
      await store.append(foreign, [{ type: 'Created', data: {}, metadata: newEventMetadata(randomUUID()) }], {
        expectedRevision: 'no_stream',
      });

      const fresh = Array.from({ length: 20 }, () => streamId('batch', randomUUID()));
      const nullData = streamId('batch', randomUUID());
      const results = await settled([
        // Fired together while the first is on its way: the rest leave as one batch.
        ...fresh.map((s) => store.append(s, [ev('Created'), ev('Renamed')], { expectedRevision: 'no_stream' })),
        // Five writers on one stream with the same expectation: the first in the batch wins.
        ...Array.from({ length: 5 }, () => store.append(contested, [ev('Created')], { expectedRevision: 'no_stream' })),
        store.append(existing, [ev('Renamed')], { expectedRevision: 0 }),
        store.append(existing, [ev('Renamed')], { expectedRevision: 7 }),
        store.append(foreign, [ev('Renamed')], { expectedRevision: 'any' }),
        // The same event twice in one batch: the second is an idempotent retry of the first.
        store.append(streamId('batch', retriedId), [ev('Created', retriedId)], { expectedRevision: 'no_stream' }),
        store.append(streamId('batch', retriedId), [ev('Created', retriedId)], { expectedRevision: 'no_stream' }),
        // Data of null and of text that needs escaping arrive as sent.
        store.append(
          nullData,
          [
            { type: 'Noted', data: null, metadata: newEventMetadata(tenant) },
            { type: 'Noted', data: { text: '引用 "符" \\ と\n改行' }, metadata: newEventMetadata(tenant) },
          ],
          { expectedRevision: 'no_stream' },
        ),
      ]);

      const ok = (i: number) => {
        const r = results[i]!;
        if (r.status !== 'fulfilled') throw r.reason;
        return r.value;
      };
      fresh.forEach((_s, i) => expect(ok(i).revision).toBe(1));
      const contestedResults = results.slice(20, 25);
      expect(contestedResults.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of contestedResults.filter((r) => r.status === 'rejected')) {
        expect((r as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
      }
      expect(ok(25).revision).toBe(1);
      expect((results[26] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
      expect((results[27] as PromiseRejectedResult).reason).toBeInstanceOf(StreamNotFoundError);
      expect(ok(29)).toEqual(ok(28));
      expect(ok(30).revision).toBe(1);
      expect((await store.readStream(nullData, { tenantId: tenant })).map((e) => e.data)).toEqual([
        null,
        { text: '引用 "符" \\ と\n改行' },
      ]);

      // Group commit happened: many appends share one transaction.
      expect(sameTransaction(fresh.map((_s, i) => ok(i)))).toBeGreaterThan(1);
      for (const s of fresh) {
        expect((await store.readStream(s, { tenantId: tenant })).map((e) => e.type)).toEqual(['Created', 'Renamed']);
      }
      expect(await store.readStream(contested, { tenantId: tenant })).toHaveLength(1);
      expect(await store.readStream(existing, { tenantId: tenant })).toHaveLength(2);
      expect(await store.readStream(streamId('batch', retriedId), { tenantId: tenant })).toHaveLength(1);
      await store.close();
    } finally {
      await db.cleanup();
    }
  });

  it('a value the server refuses fails only the append it belongs to', async () => {
    const db = await open();
    try {
      const store = await createPostgresEventStore(db, { maxBatchesInFlight: 1 });
      const tenant = randomUUID();
      const streams = Array.from({ length: 6 }, () => streamId('batch', randomUUID()));
      const results = await settled(
        streams.map((s, i) =>
          store.append(
            s,
            [
              {
                type: 'Created',
                data: {},
                metadata: { ...newEventMetadata(tenant), tenant_id: i === 3 ? 'not-a-uuid' : tenant },
              },
            ],
            { expectedRevision: 'no_stream' },
          ),
        ),
      );
      expect(results.map((r) => r.status)).toEqual([
        'fulfilled',
        'fulfilled',
        'fulfilled',
        'rejected',
        'fulfilled',
        'fulfilled',
      ]);
      for (const [i, s] of streams.entries()) {
        if (i === 3)
          await expect(store.readStream(s, { tenantId: tenant })).rejects.toBeInstanceOf(StreamNotFoundError);
        else expect(await store.readStream(s, { tenantId: tenant })).toHaveLength(1);
      }
      await store.close();
    } finally {
      await db.cleanup();
    }
  });

  it('runs guards in the append transaction: a refused item appends nothing, and a guard writes only with its events', async () => {
    const db = await open();
    try {
      const store = await createPostgresEventStore(db, { maxBatchesInFlight: 1 });
      // A guard as a service would write one: claims a key per item, refuses a key already claimed.
      await db.pool.query(`CREATE SCHEMA guard_test`);
      await db.pool.query(`CREATE TABLE guard_test.claims (key text PRIMARY KEY, stream text NOT NULL)`);
      await db.pool.query(`
        CREATE FUNCTION guard_test.claim(p_args json) RETURNS TABLE (item int, ok boolean, detail json)
        LANGUAGE plpgsql AS $$
        DECLARE r record;
        BEGIN
          FOR r IN SELECT a.item, a.arg->>'key' AS key, a.arg->>'stream' AS stream
                     FROM json_to_recordset(p_args) AS a(item int, arg json) ORDER BY a.arg->>'key' LOOP
            INSERT INTO guard_test.claims VALUES (r.key, r.stream) ON CONFLICT DO NOTHING;
            IF FOUND THEN
              RETURN QUERY SELECT r.item, true, NULL::json;
            ELSE
              RETURN QUERY SELECT r.item, false, json_build_object('holder', (SELECT c.stream FROM guard_test.claims c WHERE c.key = r.key));
            END IF;
          END LOOP;
        END $$`);
      const tenant = randomUUID();
      const claim = (stream: string, key: string, expectedRevision: 'no_stream' | number = 'no_stream') =>
        store.append(stream, [{ type: 'Claimed', data: { key }, metadata: newEventMetadata(tenant) }], {
          expectedRevision,
          guard: { fn: 'guard_test.claim', argument: { key, stream } },
        });
      const streams = Array.from({ length: 8 }, () => streamId('guarded', randomUUID()));
      const first = await claim(streams[0]!, 'a');
      expect(first.revision).toBe(0);
      const results = await settled([
        claim(streams[1]!, 'b'),
        claim(streams[2]!, 'a'), // held by streams[0]
        claim(streams[3]!, 'c'),
        claim(streams[4]!, 'c'), // the same key twice in one batch: the first in key order wins
        claim(streams[0]!, 'd', 5), // wrong revision: its guard never runs
        claim(streams[5]!, 'e'),
      ]);
      expect(results.map((r) => r.status)).toEqual([
        'fulfilled',
        'rejected',
        'fulfilled',
        'rejected',
        'rejected',
        'fulfilled',
      ]);
      const refused = (results[1] as PromiseRejectedResult).reason;
      expect(refused).toBeInstanceOf(AppendGuardRefusedError);
      expect(refused.detail).toEqual({ holder: streams[0] });
      expect((results[3] as PromiseRejectedResult).reason.detail).toEqual({ holder: streams[3] });
      expect((results[4] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
      const { rows } = await db.pool.query<{ key: string; stream: string }>(
        `SELECT key, stream FROM guard_test.claims ORDER BY key`,
      );
      // 'd' was never claimed: its append failed before the guard.
      expect(rows.map((r) => r.key)).toEqual(['a', 'b', 'c', 'e']);
      for (const i of [2, 4]) {
        await expect(store.readStream(streams[i]!, { tenantId: tenant })).rejects.toBeInstanceOf(StreamNotFoundError);
      }
      expect(await store.readStream(streams[0]!, { tenantId: tenant })).toHaveLength(1);
      await store.close();
    } finally {
      await db.cleanup();
    }
  });
});
