import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { migrateModule, createTestDatabase, type TestDatabase } from '@renkei/db';
import { commandMigrations } from './command.migrations.ts';
import { idempotentCreate } from './idempotency.ts';

let db: TestDatabase;

beforeAll(async () => {
  // A small pool, so that concurrent retries contend for connections as they do under load.
  db = await createTestDatabase({ poolMax: 4 });
  await migrateModule(db.kysely, 'command', commandMigrations);
});
afterAll(async () => {
  await db?.close();
});

const fakeRequest = (key: string) => ({ headers: { 'idempotency-key': key } }) as unknown as FastifyRequest;
const fakeReply = () => {
  const reply = { header: () => reply, position: () => reply };
  return reply as unknown as FastifyReply;
};

class Overloaded extends Error {}

describe('idempotentCreate under contention', () => {
  it('never fails a retry when an overlapping first attempt fails and frees the key', async () => {
    for (let round = 0; round < 5; round++) {
      const tenantId = randomUUID();
      const key = `key-${round}`;
      let calls = 0;
      // The first attempts fail (the database was overloaded) after the retries have started to wait
      // for them; a later attempt succeeds. Each failure frees the key while others are looking it up.
      const create = async (id: string) => {
        const call = ++calls;
        await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20));
        if (call <= 6) throw new Overloaded('overloaded');
        return { body: { id, created: true }, position: null };
      };
      const outcomes = await Promise.allSettled(
        Array.from({ length: 20 }, () =>
          idempotentCreate(
            db,
            { request: fakeRequest(key), reply: fakeReply(), tenantId, endpoint: 'test.create', hashed: { a: 1 } },
            create,
          ),
        ),
      );
      const unexpected = outcomes.filter((o) => o.status === 'rejected' && !(o.reason instanceof Overloaded));
      expect(unexpected.map((o) => String((o as PromiseRejectedResult).reason))).toEqual([]);
      const bodies = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [JSON.stringify(o.value)] : []));
      expect(new Set(bodies).size).toBeLessThanOrEqual(1);
    }
  });
});
