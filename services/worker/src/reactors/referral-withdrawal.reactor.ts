import { sql } from 'kysely';
import { ReferralDataImportWithdrawalRequested, referralDataWithdrawalAggregate, uuidV5 } from '@renkei/domain';
import { streamId } from '@renkei/event-store';
import { defineReactor, waitForPosition } from '@renkei/projections';
import { referralsProjection } from '@renkei/read-models';

/** About this many of the upload's rows per slice of a withdrawal, in at most `maxSlices` slices. */
const rowsPerSlice = 20_000;
const maxSlices = 64;
const eventIdNamespace = '7d1f3b5a9c2e4a6b8d0f1a3c5e7b9d2f';

/**
 * An owner's withdrawal of an upload takes its rows back in slices (by a hash of the row's identity),
 * sized by the rows the upload imported, each appended after the referrals projection applied the one
 * before, so a large upload's withdrawal is many short transactions and other tenants' events pass
 * between them — as the re-link after a period change does. A slice's id derives from the request, the
 * number of slices and its own number: a rerun after a crash appends nothing twice.
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
      for (let bucket = 0; bucket < buckets; bucket++) {
        const appended = await store.append(
          streamId(referralDataWithdrawalAggregate, import_id),
          [
            {
              id: uuidV5(eventIdNamespace, `${requested.id}\u0000${buckets}\u0000${bucket}`),
              type: 'ReferralDataImportWithdrawn',
              data: { import_id, bucket, buckets },
              metadata,
            },
          ],
          { expectedRevision: 'any' },
        );
        if (!(await waitForPosition(db, [referralsProjection.name], appended.position, 10_000, signal)))
          throw new Error(`withdrawal: the referrals projection did not reach slice ${bucket} of ${requested.id}`);
      }
    }
  },
});
