import type { AddressInfo } from 'node:net';
import { defaultResources, featureKeys } from '../../libs/contracts/src/index.ts';
import { createTestAuth } from '../../libs/service-kit/src/testing/index.ts';
import { buildQueryApp } from '../../services/query/src/index.ts';
import type { BenchContext } from './bench-context.ts';
import { httpClient } from './http-bench-support.ts';

type Db = Awaited<ReturnType<BenchContext['openDatabase']>>;

/**
 * The query service on a loopback port, as the benches call it: no logging, rate limit or pressure
 * guard; a keep-alive client of `sockets` connections and the headers of a token with every feature
 * for `tenantId`. `prepare` runs before it listens (hooks that time the service's own work).
 */
export async function startQueryBenchApp(
  db: Db,
  tenantId: string,
  options: { sockets: number; prepare?: (app: Awaited<ReturnType<typeof buildQueryApp>>) => void },
) {
  const testAuth = await createTestAuth({ audience: defaultResources.query });
  const app = await buildQueryApp({ db, auth: testAuth.auth, logger: false, rateLimit: false, underPressure: false });
  options.prepare?.(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const client = httpClient(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, options.sockets);
  const headers = { authorization: `Bearer ${await testAuth.token({ tenantId, features: [...featureKeys] })}` };
  return { app, client, headers };
}
