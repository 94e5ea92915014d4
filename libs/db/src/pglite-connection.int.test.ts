import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openDatabase, type Database } from './open-database.ts';

describe('embedded PGlite through pg', () => {
  let dataDir: string;
  let db: Database;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-pglite-conn-'));
    db = await openDatabase({ dataDir });
    await db.pool.query('CREATE TABLE t (x int PRIMARY KEY)');
  });
  afterAll(async () => {
    await db?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const value = async (text: string, values: unknown[] = []) =>
    (await db.pool.query<{ v: unknown }>({ text, values })).rows[0]?.v;

  it('keeps answering after the server refuses a statement', async () => {
    // Each kind of refusal once: a bad parameter (at Bind), a failure while running, a constraint.
    await expect(value('SELECT $1::uuid AS v', ['not-a-uuid'])).rejects.toThrow(/uuid/);
    expect(await value('SELECT 1 AS v')).toBe(1);
    await expect(value('SELECT 1/0 AS v')).rejects.toThrow(/division by zero/);
    expect(await value('SELECT 2 AS v')).toBe(2);
    await db.pool.query('INSERT INTO t VALUES (1)');
    await expect(db.pool.query('INSERT INTO t VALUES (1)')).rejects.toMatchObject({ code: '23505' });
    expect(await value('SELECT count(*)::int AS v FROM t')).toBe(1);
  });

  it('answers every one of many queued queries, refused or not, with its own result', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) =>
        i % 4 === 0 ? value('SELECT $1::int AS v', [`x${i}`]) : value('SELECT $1::int AS v', [String(i)]),
      ),
    );
    results.forEach((r, i) => {
      if (i % 4 === 0) expect(r.status).toBe('rejected');
      else expect(r).toEqual({ status: 'fulfilled', value: i });
    });
  });

  it('rolls back a transaction whose statement failed and goes on', async () => {
    await expect(
      db.kysely.transaction().execute(async (trx) => {
        await sql`INSERT INTO t VALUES (2)`.execute(trx);
        await sql`INSERT INTO t VALUES (2)`.execute(trx);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await value('SELECT count(*)::int AS v FROM t WHERE x = 2')).toBe(0);
    await db.kysely.transaction().execute(async (trx) => {
      await sql`INSERT INTO t VALUES (2)`.execute(trx);
    });
    expect(await value('SELECT count(*)::int AS v FROM t WHERE x = 2')).toBe(1);
  });
});
