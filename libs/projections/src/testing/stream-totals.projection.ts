import { sql } from 'kysely';
import { defineProjection } from '../projection.ts';

/**
 * A sample projection for tests and benchmarks: one row per stream with the count and sum of its
 * events and the ids in the order applied, so a skipped or doubly applied event changes the row.
 */
export function streamTotalsProjection(
  options: { name?: string; table?: string; version?: number; trackIds?: boolean } = {},
) {
  const trackIds = options.trackIds ?? true;
  const table = options.table ?? 'stream_totals';
  return defineProjection({
    name: options.name ?? 'stream_totals',
    version: options.version ?? 1,
    eventTypes: ['SampleCounted'],
    tables: [table],
    async setup(trx, t) {
      await sql`
        CREATE TABLE ${sql.table(t[table]!)} (
          stream text PRIMARY KEY,
          tenant_id uuid NOT NULL,
          events int NOT NULL,
          total bigint NOT NULL,
          last_revision int NOT NULL,
          ids text NOT NULL
        )
      `.execute(trx);
    },
    async handle(trx, events, t) {
      // Fold the batch per stream first: one row per stream, one statement per batch.
      const rows = new Map<string, { tenant: string; events: number; total: number; last: number; ids: string }>();
      for (const e of events) {
        const row = rows.get(e.stream) ?? { tenant: e.metadata.tenant_id, events: 0, total: 0, last: -1, ids: '' };
        row.events += 1;
        row.total += (e.data as { n: number }).n;
        row.last = e.revision;
        if (trackIds) row.ids += `${e.id};`;
        rows.set(e.stream, row);
      }
      const list = [...rows.entries()];
      await sql`
        INSERT INTO ${sql.table(t[table]!)} AS cur (stream, tenant_id, events, total, last_revision, ids)
        SELECT * FROM unnest(${sql.val(list.map(([s]) => s))}::text[], ${sql.val(list.map(([, r]) => r.tenant))}::uuid[],
                             ${sql.val(list.map(([, r]) => r.events))}::int[], ${sql.val(list.map(([, r]) => r.total))}::bigint[],
                             ${sql.val(list.map(([, r]) => r.last))}::int[], ${sql.val(list.map(([, r]) => r.ids))}::text[])
        ON CONFLICT (stream) DO UPDATE SET
          events = cur.events + excluded.events,
          total = cur.total + excluded.total,
          last_revision = excluded.last_revision,
          ids = cur.ids || excluded.ids
      `.execute(trx);
    },
  });
}
