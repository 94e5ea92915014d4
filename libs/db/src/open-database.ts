import fs from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { pglitePoolConfig } from './pglite-connection.ts';

/**
 * One handle on the database, whichever engine backs it.
 *
 * `pool` is a node-postgres compatible pool: code that needs raw SQL (the event store's append,
 * COPY-free batch upserts) uses it; everything else goes through `kysely`.
 */
export interface Database {
  readonly kind: 'postgres' | 'pglite';
  /**
   * For raw `sql` and transactions. Table queries go through `typed<…>()`; migrations, which are frozen
   * in time and must not follow today's types, take `typed<any>()`.
   */
  readonly kysely: Kysely<unknown>;
  /**
   * The same connection typed with the schema the caller reads (`db.typed<ReadModels>()` in the
   * query service). The types are a promise the migrations and projections keep, not checked here.
   */
  typed<DB>(): Kysely<DB>;
  readonly pool: pg.Pool;
  /** Postgres connection string when `kind` is postgres (for LISTEN/NOTIFY clients and child processes). */
  readonly url: string | undefined;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** A Postgres connection string. When absent, the embedded PGlite database in `dataDir` is used. */
  url?: string | undefined;
  /** Directory of the embedded database (only without `url`). */
  dataDir?: string | undefined;
  /** Pool size for Postgres. PGlite always has exactly one connection. */
  poolMax?: number | undefined;
  applicationName?: string | undefined;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.url) return openPostgres(options.url, options);
  if (!options.dataDir) throw new Error('openDatabase: either url or dataDir is required');
  return openPglite(options.dataDir);
}

function openPostgres(url: string, options: DatabaseOptions): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolMax ?? 10,
    application_name: options.applicationName ?? 'renkei',
    // A request that cannot get a connection for this long fails (the service kit answers 503 with
    // Retry-After) instead of queueing without end behind an overloaded server. Generous, so a busy
    // moment (an import's chunk, a rebuild's index) is waited out.
    connectionTimeoutMillis: 30_000,
  });
  // An idle client that loses its server must not crash the process.
  pool.on('error', () => undefined);
  const kysely = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  return {
    kind: 'postgres',
    kysely,
    typed: <DB>() => kysely as unknown as Kysely<DB>,
    pool,
    url,
    async close() {
      await kysely.destroy();
    },
  };
}

async function openPglite(dataDir: string): Promise<Database> {
  // PGlite's files must be owned by exactly one process: a second process silently loses writes.
  const releaseLock = acquireDirectoryLock(dataDir);
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    const lite = new PGlite(path.join(dataDir, 'pgdata'));
    await lite.waitReady;
    // One connection only: PGlite is a single backend. Callers must never await another pool query
    // while holding a transaction, or they wait on themselves.
    const pool = new pg.Pool({ ...pglitePoolConfig(lite), max: 1 });
    const kysely = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
    return {
      kind: 'pglite',
      kysely,
      typed: <DB>() => kysely as unknown as Kysely<DB>,
      pool,
      url: undefined,
      async close() {
        await kysely.destroy();
        await lite.close();
        releaseLock();
      },
    };
  } catch (error) {
    releaseLock();
    throw error;
  }
}

const lockFileName = 'renkei.lock';

function acquireDirectoryLock(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockFile = path.join(dataDir, lockFileName);
  try {
    fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const owner = embeddedDatabaseOwner(dataDir);
    if (owner !== undefined) {
      throw new Error(
        `The embedded database in ${dataDir} is already open in process ${owner}. ` +
          'Only one process may own it; use the ops commands, which talk to the running process.',
      );
    }
    fs.writeFileSync(lockFile, String(process.pid));
  }
  return () => {
    try {
      if (fs.readFileSync(lockFile, 'utf8') === String(process.pid)) fs.unlinkSync(lockFile);
    } catch {
      // already gone
    }
  };
}

/**
 * The pid of another live process that owns the embedded database in `dataDir` (its lock file), or
 * undefined when none does. The ops CLI uses it to decide whether to ask that process instead.
 */
export function embeddedDatabaseOwner(dataDir: string): number | undefined {
  let owner: number;
  try {
    owner = Number(fs.readFileSync(path.join(dataDir, lockFileName), 'utf8'));
  } catch {
    return undefined;
  }
  return owner && owner !== process.pid && isAlive(owner) ? owner : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
