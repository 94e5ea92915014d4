import { buildCommandApp } from '@renkei/command';
import type { Database } from '@renkei/db';
import type { EventStore } from '@renkei/event-store';
import { issueAccessToken, type IdentityConfig } from '@renkei/identity';
import type { AuthOptions } from '@renkei/service-kit';

export interface DemoCommandClientDeps {
  db: Database;
  store: EventStore;
  identityConfig: IdentityConfig;
  commandAuth: AuthOptions;
  tenantSlug: string;
  accounts: { owner: string; member: string };
}

/** The command service in process, called as the demo owner or member; an error answer throws. */
export interface DemoCommandClient {
  call(
    by: 'owner' | 'member',
    method: 'POST' | 'PUT',
    url: string,
    payload: object,
    idempotencyKey?: string,
  ): Promise<any>;
  /** How many calls were made (the seeds log it). */
  readonly requests: number;
  close(): Promise<void>;
}

/**
 * Demo seeds write through the command service like a user's own requests, with the rules and events of
 * the real endpoints, but without HTTP: an app of their own, `inject`ed.
 */
export async function openDemoCommandClient(deps: DemoCommandClientDeps): Promise<DemoCommandClient> {
  const app = await buildCommandApp({
    db: deps.db,
    store: deps.store,
    auth: deps.commandAuth,
    logger: false,
    rateLimit: false,
    underPressure: false,
    // A seed's app takes no tracking hits: it must not store what another install's dead process left.
    emailTrackingJournalDir: null,
  });
  try {
    const token = (email: string) =>
      issueAccessToken(
        { db: deps.db, config: deps.identityConfig },
        { tenantSlug: deps.tenantSlug, email, audience: 'command' },
      );
    const tokens = { owner: await token(deps.accounts.owner), member: await token(deps.accounts.member) };
    let requests = 0;
    return {
      async call(by, method, url, payload, idempotencyKey) {
        requests++;
        const res = await app.inject({
          method,
          url: `/api${url}`,
          headers: {
            authorization: `Bearer ${tokens[by]}`,
            ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
          },
          payload,
        });
        if (res.statusCode >= 300)
          throw new Error(`demo seed: ${method} ${url} answered ${res.statusCode}: ${res.body}`);
        return res.json();
      },
      get requests() {
        return requests;
      },
      close: () => app.close(),
    };
  } catch (error) {
    await app.close();
    throw error;
  }
}
