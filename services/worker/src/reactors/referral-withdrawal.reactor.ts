import { sql } from 'kysely';
import { ReferralDataImportWithdrawalRequested, referralDataWithdrawalAggregate, uuidV5 } from '@renkei/domain';
import { streamId } from '@renkei/event-store';
import { defineReactor, waitForPosition } from '@renkei/projections';
import { referralsProjection } from '@renkei/read-models';
import { appendInTurn, rollupSteps } from './rollup-slices.ts';

/** About this many of the upload's rows per slice of a withdrawal, in at most `maxSlices` slices. */
const rowsPerSlice = 20_000;
const maxSlices = 64;
const eventIdNamespace = '7d1f3b5a9c2e4a6b8d0f1a3c5e7b9d2f';

/**
 * An owner's withdrawal of an upload takes its rows back in slices of `rowsPerSlice` rows, as many as
 * the upload imported rows, each noting the patients and institution-months its rows
 * leave; then the re-link of those patients and the rollups of those months in slices, as an import's;
 * then the end, which takes whatever they left. Each is applied before the next is appended
 * (`appendInTurn`), so a large upload's withdrawal is many short transactions and other tenants' events
 * pass between them. A step's id derives from the request, the number of slices and the step: a rerun
 * after a crash appends nothing twice.
 */
export const referralWithdrawalReactor = defineReactor({
  name: 'referral_data_withdrawal',
  eventTypes: ['ReferralDataImportWithdrawalRequested'],
  batchSize: 10,
  async handle(events, { db, store, signal }) {
    for (const requested of events) {
      const { import_id } = ReferralDataImportWithdrawalRequested.parse(requested.data);
      const tenantId = requested.metadata.tenant_id;
      const metadata = { ...requested.metadata, causation_id: requested.id };
      // The projection first takes the request (the record leaves the history) and has its tables.
      if (!(await waitForPosition(db, [referralsProjection.name], requested.position, 10_000, signal)))
        throw new Error(`withdrawal: the referrals projection did not reach the request ${requested.id}`);
      const { rows } = await sql<{ n: number }>`
        SELECT imported_row_count AS n FROM rm.referral_data_imports WHERE tenant_id = ${tenantId} AND id = ${import_id}`.execute(
        db.kysely,
      );
      const buckets = Math.min(maxSlices, Math.max(1, Math.ceil((rows[0]?.n ?? 0) / rowsPerSlice)));
      const stream = streamId(referralDataWithdrawalAggregate, import_id);
      const idOf = (key: string) => uuidV5(eventIdNamespace, `${requested.id}\u0000${buckets}\u0000${key}`);
      const ctx = { db, store, signal };
      const each = (f: (bucket: number) => { type: string; data: object; key: string }) =>
        Array.from({ length: buckets }, (_, bucket) => f(bucket));
      await appendInTurn(
        ctx,
        stream,
        metadata,
        idOf,
        each((bucket) => ({
          type: 'ReferralDataImportWithdrawn',
          data: { import_id, bucket, buckets, rows: rowsPerSlice },
          key: `rows\u0000${bucket}`,
        })),
      );
      // The patients whose stays may move (few: those with a stay), by patient, before any month is summed.
      await appendInTurn(
        ctx,
        stream,
        metadata,
        idOf,
        each((bucket) => ({
          type: 'ReferralDataImportRollupsRequested',
          data: { import_id, phase: 'link', bucket, buckets },
          key: `link\u0000${bucket}`,
        })),
      );
      await appendInTurn(ctx, stream, metadata, idOf, await rollupSteps(db, tenantId, import_id));
      await appendInTurn(ctx, stream, metadata, idOf, [
        { type: 'ReferralDataImportWithdrawalCompleted', data: { import_id }, key: 'end' },
      ]);
    }
  },
});
