import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface EmbeddedConfig {
  dataDir: string;
  /** Public https port of the gateway. */
  port: number;
  host: string;
  /** The https origin browsers use; the issuer is `<publicOrigin>/oidc`. */
  publicOrigin: string;
  databaseUrl: string | undefined;
  eventstoreUrl: string | undefined;
  /** 0 = any free port (written to `<dataDir>/admin.json`). */
  adminPort: number;
  demoSeed: boolean;
  webDist: string;
  logLevel: string;
  tlsExtraHosts: string[];
  /** Trust X-Forwarded-For from an ingress in front (the client address the IP allow-list checks). */
  trustProxy: boolean;
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export function loadEmbeddedConfig(env: NodeJS.ProcessEnv = process.env): EmbeddedConfig {
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port <= 0 || port > 65535)
    throw new Error(`PORT must be a port number, got ${env.PORT}`);
  return {
    dataDir: path.resolve(env.RENKEI_DATA_DIR ?? path.join(repoRoot, '.data')),
    port,
    // localhost: both 127.0.0.1 and ::1, which is what `https://localhost` resolves to in browsers.
    host: env.HOST ?? 'localhost',
    publicOrigin: (env.PUBLIC_ORIGIN ?? `https://localhost:${port}`).replace(/\/$/, ''),
    databaseUrl: env.DATABASE_URL || undefined,
    eventstoreUrl: env.EVENTSTORE_URL || undefined,
    adminPort: Number(env.ADMIN_PORT ?? 0),
    demoSeed: env.RENKEI_DEMO_SEED !== 'false',
    webDist: path.resolve(env.WEB_DIST ?? path.join(repoRoot, 'web/dist')),
    logLevel: env.LOG_LEVEL ?? 'warn',
    tlsExtraHosts: (env.TLS_EXTRA_HOSTS ?? '')
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean),
    trustProxy: env.TRUST_PROXY === 'true',
  };
}
