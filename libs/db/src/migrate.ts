import { sql, type DatabaseIntrospector, type Kysely, type TableMetadata } from 'kysely';
import { Migrator, type Migration } from 'kysely/migration';
import type { Database } from './open-database.ts';

/** A module's migrations, keyed by a sortable name (`0001_events`). Frozen once released. */
export type ModuleMigrations = Record<string, Migration>;

/**
 * Runs one module's migrations with its own bookkeeping table, so modules (event store, identity,
 * each read model) evolve independently and can live in one database or in several.
 */
export async function migrateModule(db: Kysely<any>, module: string, migrations: ModuleMigrations): Promise<void> {
  const migrationTableName = `migrations_${module.replace(/[^a-z0-9_]/gi, '_')}`;
  const migrationLockTableName = `${migrationTableName}_lock`;
  const checked = withCheapTableChecks(db, [migrationTableName, migrationLockTableName]);
  // Given a transaction, the Migrator hands its own handle (the proxy) to the migrations: they get the
  // caller's instead, whose introspection still sees every table.
  const own = (d: Kysely<any>): Kysely<any> => (d === checked ? db : d);
  const migrator = new Migrator({
    db: checked,
    provider: {
      getMigrations: async () =>
        Object.fromEntries(
          Object.entries(migrations).map(([name, m]): [string, Migration] => [
            name,
            m.down ? { up: (d) => m.up(own(d)), down: (d) => m.down!(own(d)) } : { up: (d) => m.up(own(d)) },
          ]),
        ),
    },
    migrationTableName,
    migrationLockTableName,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`Migration of ${module} failed at ${failed?.migrationName ?? '?'}: ${String(error)}`, {
      cause: error,
    });
  }
}

/**
 * `db` for the Migrator, whose only use of introspection is asking whether its two bookkeeping tables
 * exist (2–4 times per run). Kysely answers that with `getTables()`, which on PostgreSQL reads every
 * column of every table in the database: 34 ms a call on a benchmark database, paid per module at
 * every service start, every test database and on PGlite, and growing with the read-model tables.
 * Here `getTables()` looks up only `tableNames`, with the same filters as Kysely's (kind, schemas
 * skipped, USAGE privilege), so the Migrator decides exactly as before; their columns, which it never
 * reads, are left out. Kysely 0.29's Migrator has no option to replace that check.
 *
 * A Proxy because Kysely keeps its state in `#private` fields: a member reached through the proxy
 * must run with the real instance as `this`, so methods are bound to it and getters read on it.
 */
function withCheapTableChecks<DB>(db: Kysely<DB>, tableNames: readonly string[]): Kysely<DB> {
  const introspection: DatabaseIntrospector = {
    getSchemas: () => db.introspection.getSchemas(),
    async getTables(): Promise<TableMetadata[]> {
      const { rows } = await sql<{ name: string; schema: string; kind: string }>`
        SELECT c.relname AS name, ns.nspname AS schema, c.relkind AS kind
        FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace ns ON ns.oid = c.relnamespace
        WHERE c.relname IN (${sql.join(tableNames)})
          AND c.relkind IN ('r', 'v', 'p', 'f')
          AND ns.nspname !~ '^pg_' AND ns.nspname <> 'information_schema' AND ns.nspname <> 'crdb_internal'
          AND has_schema_privilege(ns.oid, 'USAGE')
        ORDER BY ns.nspname, c.relname`.execute(db.withoutPlugins());
      return rows.map((r) => ({
        name: r.name,
        schema: r.schema,
        isView: r.kind === 'v',
        isForeign: r.kind === 'f',
        columns: [],
      }));
    },
  };
  return new Proxy(db, {
    get(target, property) {
      if (property === 'introspection') return introspection;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const migratedModules = new WeakMap<Database, Map<string, Promise<void>>>();

/**
 * `migrateModule` on first use of a module in a database, once per process: callers that ask while it
 * runs share that run (at a start many loops ask at once, and each would otherwise queue for the
 * Migrator's lock in turn), later calls cost nothing, and a failed run is forgotten so the next caller
 * tries again.
 */
export function migrateModuleOnce(db: Database, module: string, migrations: ModuleMigrations): Promise<void> {
  const modules = migratedModules.get(db) ?? new Map<string, Promise<void>>();
  migratedModules.set(db, modules);
  let running = modules.get(module);
  if (!running) {
    running = migrateModule(db.kysely, module, migrations);
    modules.set(module, running);
    running.catch(() => modules.delete(module));
  }
  return running;
}
