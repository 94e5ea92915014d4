import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { migrateProjections } from './projections.migrations.ts';

describe('migrateProjections', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db.close();
  });

  it('runs once for callers that ask at the same time, and later callers get that run', async () => {
    const calls = Array.from({ length: 6 }, () => migrateProjections(db));
    expect(new Set(calls).size).toBe(1);
    await Promise.all(calls);
    expect(migrateProjections(db)).toBe(calls[0]);
    const { rows } = await db.pool.query<{ n: string }>(`SELECT count(*)::text AS n FROM migrations_projections`);
    expect(Number(rows[0]!.n)).toBeGreaterThan(0);
  });

  it('is run again for another handle of the database', async () => {
    const other = await createTestDatabase();
    try {
      expect(migrateProjections(other)).not.toBe(migrateProjections(db));
    } finally {
      await migrateProjections(other);
      await other.close();
    }
  });
});
