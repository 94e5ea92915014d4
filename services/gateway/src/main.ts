// Standalone gateway (one container of the production topology).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildGatewayApp } from './gateway.app.ts';
import { followIpAllowLists } from './ip-allow-lists.ts';
import { ensureLocalCertificate } from './tls.ts';

const env = process.env;
const required = (name: string): string => {
  const value = env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const tls =
  env.TLS_KEY_FILE && env.TLS_CERT_FILE
    ? { key: fs.readFileSync(env.TLS_KEY_FILE), cert: fs.readFileSync(env.TLS_CERT_FILE) }
    : ensureLocalCertificate(path.join(path.resolve(env.RENKEI_DATA_DIR ?? '.data'), 'tls'));

const identityUrl = required('IDENTITY_URL');
const ipAllowLists = followIpAllowLists({
  url: `${identityUrl.replace(/\/$/, '')}/internal/ip_allow_lists`,
  onError: (err) => console.warn('gateway: IP allow-lists not refreshed', err),
});
const app = await buildGatewayApp({
  tls,
  ipAllowLists,
  upstreams: { identity: identityUrl, command: required('COMMAND_URL'), query: required('QUERY_URL') },
  webDist: path.resolve(env.WEB_DIST ?? path.join(repoRoot, 'web/dist')),
  trustProxy: env.TRUST_PROXY === 'true' ? true : false,
  logger: { level: env.LOG_LEVEL ?? 'info' },
});
await app.listen({ host: env.HOST ?? '0.0.0.0', port: Number(env.PORT ?? 3000) });

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    ipAllowLists.close();
    void app.close().then(() => process.exit(0));
  });
}
