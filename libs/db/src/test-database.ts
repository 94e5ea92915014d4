import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from './open-database.ts';

export interface TestDatabase extends Database {
  readonly url: string;
}

const defaultAdminUrl = 'postgres://postgres@127.0.0.1:5432/postgres';
/** The PostgreSQL image started when no server answers; the major version docker-compose.yml runs. */
const containerImage = 'postgres:16-alpine';

let adminUrlOnce: Promise<string> | undefined;
const adminUrl = (): Promise<string> =>
  (adminUrlOnce ??= resolveTestDatabaseAdminUrl(process.env.TEST_DATABASE_ADMIN_URL ?? defaultAdminUrl));

/**
 * The admin URL integration tests create their databases through: the configured server
 * (TEST_DATABASE_ADMIN_URL, default the local one) when it answers; else a PostgreSQL container
 * started with testcontainers when a Docker engine is reachable (one per test process, reused by the
 * files that run in it); else an error that says in one line what to start.
 */
export async function resolveTestDatabaseAdminUrl(configured: string): Promise<string> {
  if (await serverAnswers(configured)) return configured;
  const started = await startContainer();
  if (started) return started;
  throw new Error(
    `No PostgreSQL answers at ${withoutPassword(configured)} and no Docker engine is reachable: ` +
      'start PostgreSQL there (or point TEST_DATABASE_ADMIN_URL at one) or start Docker for testcontainers.',
  );
}

async function serverAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    return true;
  } catch (error) {
    // A server that answers and refuses (wrong password, missing role) is a configuration error to
    // show as it is, not a reason to start another server.
    const code = (error as { code?: string }).code;
    const unreachable = ['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT', 'EAI_AGAIN', 'ENOENT'];
    if (code && !unreachable.includes(code)) throw error;
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function startContainer(): Promise<string | null> {
  // Loaded only here: installs that never fall back never load the Docker client.
  const { getContainerRuntimeClient } = await import('testcontainers');
  try {
    await getContainerRuntimeClient();
  } catch {
    return null;
  }
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
  const container = await new PostgreSqlContainer(containerImage).withReuse().start();
  const url = new URL(container.getConnectionUri());
  url.pathname = '/postgres';
  return url.toString();
}

function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}

/**
 * A fresh, empty Postgres database for one test file, dropped on close (see
 * `resolveTestDatabaseAdminUrl` for where the server comes from); integration tests never share state
 * through the database.
 */
export async function createTestDatabase(options: { poolMax?: number } = {}): Promise<TestDatabase> {
  const admin = await adminUrl();
  const name = `renkei_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  const db = await openDatabase({
    url: url.toString(),
    poolMax: options.poolMax ?? 20,
    applicationName: 'renkei-test',
  });
  return {
    ...db,
    url: url.toString(),
    async close() {
      await db.close();
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
