import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, openDatabase, type Database } from '@renkei/db';
import { StreamNotFoundError, WrongExpectedRevisionError } from '../errors.ts';
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
});
