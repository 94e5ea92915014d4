import type { Kysely } from 'kysely';
import { Migrator, type Migration } from 'kysely/migration';
import type { Database } from './open-database.ts';

/** A module's migrations, keyed by a sortable name (`0001_events`). Frozen once released. */
export type ModuleMigrations = Record<string, Migration>;

/**
 * Runs one module's migrations with its own bookkeeping table, so modules (event store, identity,
 * each read model) evolve independently and can live in one database or in several.
 */
export async function migrateModule(db: Kysely<any>, module: string, migrations: ModuleMigrations): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: `migrations_${module.replace(/[^a-z0-9_]/gi, '_')}`,
    migrationLockTableName: `migrations_${module.replace(/[^a-z0-9_]/gi, '_')}_lock`,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`Migration of ${module} failed at ${failed?.migrationName ?? '?'}: ${String(error)}`, {
      cause: error,
    });
  }
}

const migratedModules = new WeakMap<Database, Set<string>>();

/** `migrateModule` on first use of a module in a database, once per process: later calls cost nothing. */
export async function migrateModuleOnce(db: Database, module: string, migrations: ModuleMigrations): Promise<void> {
  if (migratedModules.get(db)?.has(module)) return;
  await migrateModule(db.kysely, module, migrations);
  migratedModules.set(db, new Set(migratedModules.get(db)).add(module));
}
