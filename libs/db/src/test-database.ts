import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from './open-database.ts';

export interface TestDatabase extends Database {
  readonly url: string;
}

const adminUrl = () => process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * A fresh, empty Postgres database for one test file, dropped on close. Uses the machine's local
 * PostgreSQL (TEST_DATABASE_ADMIN_URL); integration tests never share state through the database.
 */
export async function createTestDatabase(options: { poolMax?: number } = {}): Promise<TestDatabase> {
  const name = `renkei_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl());
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
      const c = new pg.Client({ connectionString: adminUrl() });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
