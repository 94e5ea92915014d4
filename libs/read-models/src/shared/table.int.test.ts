import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { column, createTables, defineTable, insertRows } from './table.ts';

const items = defineTable({
  name: 'items',
  columns: { id: column.int(), label: column.text() },
  primaryKey: ['id'],
});

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase({ poolMax: 2 });
  await db.kysely.transaction().execute((trx) => createTables(trx, [items], { items: 'public.items' }));
});
afterAll(() => db?.close());

describe('insertRows', () => {
  it('splits a batch into statements of at most rowsPerStatement rows, writing every row once, with onConflict on each', async () => {
    const rows = Array.from({ length: 25 }, (_, i) => ({ id: i, label: `a${i}` }));
    await db.kysely.transaction().execute(async (trx) => {
      await insertRows(trx, 'public.items', items, rows.slice(0, 5));
      // Rows 0–4 exist: without the conflict clause on every statement, the first one would fail.
      await insertRows(
        trx,
        'public.items',
        items,
        rows.map((r) => ({ ...r, label: `b${r.id}` })),
        { rowsPerStatement: 10, onConflict: sql`ON CONFLICT (id) DO UPDATE SET label = excluded.label` },
      );
    });
    const { rows: stored } = await sql<{
      id: number;
      label: string;
    }>`SELECT id, label FROM public.items ORDER BY id`.execute(db.kysely);
    expect(stored).toEqual(rows.map((r) => ({ id: r.id, label: `b${r.id}` })));
  });
});
