import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { defaultResources } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, type EventStore, type Position } from '@renkei/event-store';
import { generateInstitutionMaster, importInstitutionMaster } from '@renkei/institution-master';
import { catchUpProjections, startProjections } from '@renkei/projections';
import { createTestAuth, type TestAuth } from '@renkei/service-kit/testing';
import { buildQueryApp, queryProjections } from '../index.ts';

export interface QueryTest {
  db: TestDatabase;
  store: EventStore;
  app: FastifyInstance;
  testAuth: TestAuth;
  /** Appends one event of a tenant as a command would. */
  record(tenantId: string, stream: string, type: string, data: unknown): Promise<void>;
  /** Catches the query projections up to the last recorded event (tests without `live`). */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The set-up of a query-service int test: a fresh database and event store, the query app behind test
 * tokens, and an institution master — `generated` (that many institutions from a seed) or `csv` (the
 * master file's lines, for tests that need a known code). `live` starts the projections in the
 * background (tests that read with `X-Min-Position`); without it the test catches them up itself.
 */
export async function startQueryTest(options: {
  master: { generated: { count: number; seed: number } } | { csv: string };
  live?: boolean;
}): Promise<QueryTest> {
  const db = await createTestDatabase();
  const store = await createPostgresEventStore(db);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-query-test-'));
  const file = path.join(dir, 'm.csv');
  if ('csv' in options.master) fs.writeFileSync(file, options.master.csv);
  else await generateInstitutionMaster(file, options.master.generated);
  await importInstitutionMaster(db, file);
  fs.rmSync(dir, { recursive: true, force: true });
  const projections = options.live ? startProjections({ db, store, projections: queryProjections }) : null;
  const testAuth = await createTestAuth({ audience: defaultResources.query });
  const app = await buildQueryApp({
    db,
    auth: testAuth.auth,
    logger: false,
    rateLimit: false,
    underPressure: false,
    minPositionTimeoutMs: 10_000,
  });
  let last: Position | undefined;
  return {
    db,
    store,
    app,
    testAuth,
    async record(tenantId, stream, type, data) {
      const metadata = {
        tenant_id: tenantId,
        account_id: null,
        correlation_id: randomUUID(),
        causation_id: null,
        schema_version: 1,
      };
      last = (await store.append(stream, [{ type, data, metadata }], { expectedRevision: 'any' })).position;
    },
    async settle() {
      // Nothing to wait for before the first event.
      if (last) await catchUpProjections({ db, store, projections: queryProjections, until: last });
    },
    async close() {
      await app.close();
      await projections?.stop();
      await store.close();
      await db.close();
    },
  };
}
