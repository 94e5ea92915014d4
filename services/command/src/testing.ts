import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { defaultResources } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import type { EventStore } from '@renkei/event-store';
import { createTestAuth, type TestAuth, type TestTokenClaims } from '@renkei/service-kit/testing';
import { buildCommandApp, type CommandAppDeps } from './index.ts';

/**
 * The command app as tests and benchmarks drive it: tokens from a local test signer, no request log,
 * no rate limit and no load shedding (they would turn a busy test machine into 429s and 503s), and no
 * journal of tracking hits unless one is given (a test process would store the hits another one
 * left in the shared data directory into its own database).
 */
export async function buildTestCommandApp(
  db: Database,
  store: EventStore,
  overrides: Partial<
    Pick<
      CommandAppDeps,
      'fileUrlKey' | 'maxUploadedFileBytes' | 'fileStorage' | 'emailTrackingJournalDir' | 'publicOrigin'
    >
  > = {},
): Promise<{ app: FastifyInstance; testAuth: TestAuth }> {
  const testAuth = await createTestAuth({ audience: defaultResources.command });
  const app = await buildCommandApp({
    db,
    store,
    auth: testAuth.auth,
    logger: false,
    rateLimit: false,
    underPressure: false,
    emailTrackingJournalDir: null,
    ...overrides,
  });
  return { app, testAuth };
}

export type WriteMethod = 'POST' | 'PUT' | 'DELETE';

/** Sends a request as `caller` with a fresh token (every feature unless the caller names some). */
export async function injectAs(
  { app, testAuth }: { app: FastifyInstance; testAuth: TestAuth },
  caller: TestTokenClaims,
  method: WriteMethod,
  url: string,
  payload?: unknown,
  headers: Record<string, string> = {},
) {
  const token = await testAuth.token(caller);
  return app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${token}`, ...headers },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

/** How many events a tenant has in the store: a rejected command must leave it unchanged. */
export async function tenantEventCount(db: Database, tenantId: string): Promise<number> {
  const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM es.events WHERE tenant_id = ${tenantId}`.execute(
    db.kysely,
  );
  return Number(rows[0]!.n);
}
