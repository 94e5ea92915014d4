import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '@renkei/db';
import { StreamNotFoundError } from '../errors.ts';
import { newEventMetadata } from '../metadata.ts';
import { streamId } from '../stream-id.ts';
import { eventStoreContract } from '../event-store.contract.ts';
import { createPostgresEventStore } from './postgres-event-store.ts';

eventStoreContract('Postgres', async () => {
  const db = await createTestDatabase();
  const store = await createPostgresEventStore(db);
  return {
    store,
    async cleanup() {
      await store.close();
      await db.close();
    },
  };
});

describe('Postgres event store: tenant guard on append', () => {
  it("refuses to append to another tenant's stream as if it did not exist", async () => {
    const db = await createTestDatabase();
    try {
      const store = await createPostgresEventStore(db);
      const stream = streamId('guard', randomUUID());
      const meta = (tenantId: string) => newEventMetadata(tenantId);
      const owner = randomUUID();
      await store.append(stream, [{ type: 'A', data: {}, metadata: meta(owner) }], { expectedRevision: 'no_stream' });
      await expect(
        store.append(stream, [{ type: 'A', data: {}, metadata: meta(randomUUID()) }], { expectedRevision: 'any' }),
      ).rejects.toBeInstanceOf(StreamNotFoundError);
      expect(await store.readStream(stream, { tenantId: owner })).toHaveLength(1);
      // The same through appendMany, without stopping the call's other appends.
      const other = streamId('guard', randomUUID());
      const outcomes = await store.appendMany([
        { stream, events: [{ type: 'A', data: {}, metadata: meta(randomUUID()) }], expectedRevision: 'any' },
        { stream: other, events: [{ type: 'A', data: {}, metadata: meta(owner) }], expectedRevision: 'no_stream' },
      ]);
      expect(outcomes[0]).toMatchObject({ ok: false, error: expect.any(StreamNotFoundError) });
      expect(outcomes[1]!.ok).toBe(true);
      expect(await store.readStream(stream, { tenantId: owner })).toHaveLength(1);
    } finally {
      await db.close();
    }
  });
});
