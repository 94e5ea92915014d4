import { sql, type Transaction } from 'kysely';

/**
 * The attribute keys of rollups keyed by the institution master's facility type and prefecture, for an
 * institution the master gives none (a key column cannot be null). Shared by the visit and referral
 * attribute rollups and their readers.
 */
export const noFacilityType = -2147483648;
export const noPrefecture = -32768;
/**
 * The city key for an institution the master does not hold: a full-width '!', which NFKC never leaves,
 * so no city filter (normalised to NFKC, as the master join compares it) names it, as no city filter
 * keeps such an institution through the join.
 */
export const noCity = '\uFF01';

/**
 * The institution master's sync runs so far, or null when one is running (or there is no master yet).
 * Read before any master row: a sync inserts its run before it writes an institution, so rows summed
 * after this read are at least as new as the count says, and any later sync moves the count on.
 */
export async function masterRuns(trx: Transaction<unknown>): Promise<number | null> {
  const { rows: exists } = await sql<{ ok: boolean }>`
    SELECT to_regclass('ref.sync_runs') IS NOT NULL AND to_regclass('ref.medical_institutions') IS NOT NULL AS ok`.execute(
    trx,
  );
  if (!exists[0]?.ok) return null;
  const { rows } = await sql<{ runs: number; running: number }>`
    SELECT count(*)::int AS runs, count(*) FILTER (WHERE status = 'running')::int AS running
      FROM ref.sync_runs WHERE kind = 'medical_institutions'`.execute(trx);
  return rows[0]!.running > 0 ? null : rows[0]!.runs;
}
