import { sql } from 'kysely';
import type { Database } from '@renkei/db';

/** What "nothing was written" is measured by: the tenant's events and a digest of its rows. */
export interface TenantState {
  readonly events: number;
  readonly checksum: string;
}

// Tables filled on every request whatever its outcome (idempotency claims are released on failure,
// sign-in bookkeeping) are not the tenant's data.
const ignored = new Set(['identity.sign_in_failures', 'identity.outbox']);

async function tenantTables(db: Database): Promise<{ schema: string; table: string }[]> {
  // Read models appear lazily (a projection's first batch, a versioned rebuild): listed on every reading.
  const { rows } = await sql<{ schema: string; table: string }>`
    SELECT c.table_schema AS schema, c.table_name AS table
      FROM information_schema.columns c
      JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
     WHERE c.column_name = 'tenant_id' AND c.table_schema IN ('rm', 'identity') AND t.table_type = 'BASE TABLE'
     ORDER BY 1, 2`.execute(db.kysely);
  return rows.filter((r) => !ignored.has(`${r.schema}.${r.table}`));
}

export async function tenantState(db: Database, tenantId: string): Promise<TenantState> {
  const events = await sql<{ n: string }>`
    SELECT count(*)::text AS n FROM es.events WHERE metadata->>'tenant_id' = ${tenantId}`.execute(db.kysely);
  const parts: string[] = [];
  for (const t of await tenantTables(db)) {
    const { rows } = await sql<{ digest: string | null }>`
      SELECT md5(string_agg(x::text, '|' ORDER BY x::text)) AS digest
        FROM ${sql.table(`${t.schema}.${t.table}`)} x WHERE x.tenant_id::text = ${tenantId}`.execute(db.kysely);
    parts.push(`${t.schema}.${t.table}:${rows[0]?.digest ?? '-'}`);
  }
  return { events: Number(events.rows[0]!.n), checksum: parts.join(',') };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The tenant's state once projections and reactors have caught up with what was written before:
 * two equal readings 300 ms apart. Without this a projection finishing an earlier, valid write would
 * look like a write by the attack that follows.
 */
export async function settledState(db: Database, tenantId: string, timeoutMs = 20_000): Promise<TenantState> {
  const until = Date.now() + timeoutMs;
  let previous = await tenantState(db, tenantId);
  for (;;) {
    await sleep(300);
    const now = await tenantState(db, tenantId);
    if ((now.events === previous.events && now.checksum === previous.checksum) || Date.now() > until) return now;
    previous = now;
  }
}

/**
 * Events a request wrote: those carrying its request id as correlation id. Unlike a count of the
 * tenant's events, a reactor finishing earlier work in the background does not show up here.
 */
export async function eventsWrittenBy(db: Database, requestId: string): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    SELECT count(*)::text AS n FROM es.events WHERE metadata->>'correlation_id' = ${requestId}`.execute(db.kysely);
  return Number(rows[0]!.n);
}
