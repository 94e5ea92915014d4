import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { migrateModule, type ModuleMigrations } from './migrate.ts';
import { openDatabase, type Database } from './open-database.ts';
import { createTestDatabase } from './test-database.ts';

const engines: [string, () => Promise<{ db: Database; cleanUp: () => Promise<void> }>][] = [
  [
    'PostgreSQL',
    async () => {
      const db = await createTestDatabase({ poolMax: 4 });
      return { db, cleanUp: () => db.close() };
    },
  ],
  [
    'PGlite',
    async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-pglite-migrate-'));
      const db = await openDatabase({ dataDir });
      return {
        db,
        cleanUp: async () => {
          await db.close();
          fs.rmSync(dataDir, { recursive: true, force: true });
        },
      };
    },
  ],
];

/** Kysely's `getTables()` on PostgreSQL: every column of every table, the query this module avoids. */
const columnScan = /pg_attribute/i;

describe.each(engines)('migrateModule on %s', (_engine, open) => {
  let db: Database;
  let cleanUp: () => Promise<void>;
  /** Every statement sent through `logged`, the handle the migrations run on. */
  let statements: string[] = [];
  let logged: Kysely<unknown>;

  beforeAll(async () => {
    ({ db, cleanUp } = await open());
    // Over the same pool, never destroyed here: `db.close()` ends the pool.
    logged = new Kysely<unknown>({
      dialect: new PostgresDialect({ pool: db.pool }),
      log: (event) => {
        statements.push(event.query.sql);
      },
    });
  });
  afterAll(async () => {
    await cleanUp?.();
  });
  beforeEach(() => {
    statements = [];
  });

  const tableExists = async (name: string) =>
    (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_class WHERE relname = $1', [name])).rows[0]!
      .n === 1;

  it('runs a migration once, and one added later on the next run', async () => {
    const ran: string[] = [];
    const first: ModuleMigrations = {
      '0001_a': {
        async up(d) {
          ran.push('0001_a');
          await sql`CREATE TABLE twice_a (x int)`.execute(d);
        },
      },
    };
    await migrateModule(logged, 'twice', first);
    expect(ran).toEqual(['0001_a']);
    expect(await tableExists('twice_a')).toBe(true);

    statements = [];
    await migrateModule(logged, 'twice', first);
    expect(ran).toEqual(['0001_a']);
    // The bookkeeping tables were found: nothing is created or recorded again.
    expect(statements.filter((s) => /^\s*(create|insert)\b/i.test(s))).toEqual([]);

    await migrateModule(logged, 'twice', {
      ...first,
      '0002_b': {
        async up(d) {
          ran.push('0002_b');
          await sql`CREATE TABLE twice_b (x int)`.execute(d);
        },
      },
    });
    expect(ran).toEqual(['0001_a', '0002_b']);
    expect(await tableExists('twice_b')).toBe(true);
    const { rows } = await db.pool.query<{ name: string }>('SELECT name FROM migrations_twice ORDER BY name');
    expect(rows.map((r) => r.name)).toEqual(['0001_a', '0002_b']);
  });

  it('checks for its tables without reading every column of every table', async () => {
    const migrations: ModuleMigrations = {
      '0001_a': {
        async up(d) {
          await sql`CREATE TABLE checks_a (x int)`.execute(d);
        },
      },
    };
    await migrateModule(logged, 'checks', migrations);
    await migrateModule(logged, 'checks', migrations);
    expect(statements.filter((s) => columnScan.test(s))).toEqual([]);
    expect(statements.filter((s) => /pg_class/.test(s)).length).toBeGreaterThanOrEqual(4);

    // The pattern does catch Kysely's own check, which a plain Migrator issues on the same handle.
    statements = [];
    const { error } = await new Migrator({
      db: logged,
      provider: { getMigrations: async () => ({}) },
      migrationTableName: 'migrations_plain',
      migrationLockTableName: 'migrations_plain_lock',
    }).migrateToLatest();
    expect(error).toBeUndefined();
    expect(statements.filter((s) => columnScan.test(s)).length).toBeGreaterThan(0);
  });

  it('finds its tables in any schema, not only the first of search_path, as Kysely does', async () => {
    // A module migrated before another schema was put first in search_path: its tables are still
    // found (Kysely looks in every schema), so they are not created again in the new one.
    const migrations: ModuleMigrations = { '0001_a': { up: async () => undefined } };
    await migrateModule(logged, 'schemas', migrations);
    await db.kysely.connection().execute(async (conn) => {
      await sql`CREATE SCHEMA IF NOT EXISTS elsewhere`.execute(conn);
      await sql`SET search_path TO elsewhere, public`.execute(conn);
      try {
        await migrateModule(conn, 'schemas', migrations);
      } finally {
        await sql`RESET search_path`.execute(conn);
      }
    });
    const { rows } = await db.pool.query<{ schema: string }>(
      `SELECT n.nspname AS schema FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE c.relname = 'migrations_schemas'`,
    );
    expect(rows).toEqual([{ schema: 'public' }]);
  });

  it('hands migrations run inside a caller’s transaction that transaction, with its full introspection', async () => {
    await db.pool.query('CREATE TABLE IF NOT EXISTS seen_by_migration (x int)');
    let seen: string[] = [];
    await db.kysely.transaction().execute((trx) =>
      migrateModule(trx, 'in_transaction', {
        '0001_a': {
          async up(d) {
            expect(d.isTransaction).toBe(true);
            seen = (await d.introspection.getTables()).map((t) => t.name);
          },
        },
      }),
    );
    expect(seen).toContain('seen_by_migration');
  });

  it('runs a migration once when several processes migrate at the same time', async () => {
    let runs = 0;
    const migrations: ModuleMigrations = {
      '0001_a': {
        async up(d) {
          runs++;
          await sql`CREATE TABLE concurrent_a (x int)`.execute(d);
        },
      },
    };
    await Promise.all(Array.from({ length: 4 }, () => migrateModule(db.kysely, 'concurrent', migrations)));
    expect(runs).toBe(1);
    expect(await tableExists('concurrent_a')).toBe(true);
  });
});
