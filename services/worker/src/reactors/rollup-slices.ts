import { sql } from 'kysely';
import type { Database } from '@renkei/db';
import type { EventMetadata, EventStore } from '@renkei/event-store';
import { waitForPosition } from '@renkei/projections';
import { referralsProjection } from '@renkei/read-models';

/** About this many institution-months per rollup slice: about half a second of the per-month statements here. */
const monthsPerSlice = 500;
const maxSlices = 2_048;

/**
 * How many rollup slices sum the institution-months a change left noted (`referral_pending_months`
 * under `pendingId`: a re-link's change, a withdrawn upload): sized by those months, not by the rows
 * that noted them, since a month's statements cost the same whichever number of rows touched it.
 */
async function rollupSliceCount(db: Database, tenantId: string, pendingId: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM rm.referral_pending_months WHERE tenant_id = ${tenantId} AND import_id = ${pendingId}`.execute(
    db.kysely,
  );
  return Math.min(maxSlices, Math.max(1, Math.ceil((rows[0]?.n ?? 0) / monthsPerSlice)));
}

/** One event a tenant-wide change is carried out in; `key` names it among the change's steps (its id). */
export interface Step {
  type: string;
  data: object;
  key: string;
}

/**
 * Appends the steps one at a time to `stream`, each after the referrals projection applied the one
 * before, so each is its own short transaction and other tenants' events pass between them. A step's id
 * derives from `idOf(key)`: a rerun after a crash appends nothing twice. A projection that does not get
 * there soon (parked, stopped, shutting down) fails the batch: the reactor retries it later, and a
 * stopping worker is not held by the wait.
 */
export async function appendInTurn(
  { db, store, signal }: { db: Database; store: EventStore; signal?: AbortSignal | undefined },
  stream: string,
  metadata: EventMetadata,
  idOf: (key: string) => string,
  steps: readonly Step[],
): Promise<void> {
  for (const step of steps) {
    const appended = await store.append(stream, [{ id: idOf(step.key), type: step.type, data: step.data, metadata }], {
      expectedRevision: 'any',
    });
    if (!(await waitForPosition(db, [referralsProjection.name], appended.position, 10_000, signal)))
      throw new Error(`the referrals projection did not reach ${step.type} (${step.key}) on ${stream}`);
  }
}

/** The rollup slices of what a change left noted under `pendingId`, sized by `rollupSliceCount`. */
export async function rollupSteps(db: Database, tenantId: string, pendingId: string): Promise<Step[]> {
  const n = await rollupSliceCount(db, tenantId, pendingId);
  return Array.from({ length: n }, (_, bucket) => ({
    type: 'ReferralDataImportRollupsRequested',
    data: { import_id: pendingId, phase: 'rollup', bucket, buckets: n },
    key: `rollup\u0000${n}\u0000${bucket}`,
  }));
}
