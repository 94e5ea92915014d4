import { ReferralAdmissionPeriodChanged, uuidV5 } from '@renkei/domain';
import { defineReactor, waitForPosition } from '@renkei/projections';
import { referralsProjection } from '@renkei/read-models';

/** Slices of a tenant's patients (by a hash of the patient key) one period change is re-linked in. */
export const relinkBuckets = 32;
const eventIdNamespace = '2c7e9a4b1d3f4e6a8b0c2d4e6f8a0b1c';

/**
 * A change of a tenant's admission period calls for every stay of the tenant to be linked again. Done
 * in one projection batch, a large tenant would hold the referrals projection (and every tenant's
 * imports behind it) for one long transaction; instead this appends the re-link in slices, each after
 * the projection has applied the one before, so other tenants' events pass between them. A slice's id
 * derives from the change and its number: a rerun after a crash appends nothing twice.
 */
export const referralRelinkReactor = defineReactor({
  name: 'referral_stays_relink',
  eventTypes: ['ReferralAdmissionPeriodChanged'],
  batchSize: 10,
  async handle(events, { db, store }) {
    for (const changed of events) {
      ReferralAdmissionPeriodChanged.parse(changed.data);
      const metadata = { ...changed.metadata, causation_id: changed.id };
      for (let bucket = 0; bucket < relinkBuckets; bucket++) {
        const appended = await store.append(
          changed.stream,
          [
            {
              id: uuidV5(eventIdNamespace, `${changed.id}\u0000${bucket}`),
              type: 'ReferralStaysRelinkRequested',
              data: { change_id: changed.id, bucket, buckets: relinkBuckets },
              metadata,
            },
          ],
          { expectedRevision: 'any' },
        );
        // A projection that does not get there (parked, stopped) fails the batch: the reactor retries it.
        if (!(await waitForPosition(db, [referralsProjection.name], appended.position, 120_000)))
          throw new Error(`referral re-link: the referrals projection did not reach slice ${bucket} of ${changed.id}`);
      }
    }
  },
});
