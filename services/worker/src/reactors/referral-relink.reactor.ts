import { sql } from 'kysely';
import { ReferralAdmissionPeriodChanged, referralStaysRelinkAggregate, uuidV5 } from '@renkei/domain';
import { streamId } from '@renkei/event-store';
import { defineReactor, waitForPosition } from '@renkei/projections';
import { referralsProjection } from '@renkei/read-models';
import { appendInTurn, rollupSteps } from './rollup-slices.ts';

/** About this many stays per slice of a re-link, in at most `maxSlices` slices. */
const staysPerSlice = 20_000;
const maxSlices = 64;
const eventIdNamespace = '2c7e9a4b1d3f4e6a8b0c2d4e6f8a0b1c';

/**
 * A change of a tenant's admission period calls for every stay of the tenant to be linked again. Done
 * in one projection batch, a large tenant would hold the referrals projection (and every tenant's
 * imports behind it) for one long transaction; instead this appends the re-link in slices of the
 * tenant's patients (by a hash of the patient key), sized by its stays, each noting the institution-
 * months its links leave to sum; then the rollup slices of those months, sized by them; then the end,
 * which sums whatever they left. Each is applied before the next is appended (`appendInTurn`), so other
 * tenants' events pass between them. A step's id derives from the change, the number of slices and the
 * step: a rerun after a crash appends nothing twice, and a rerun that counts another number of slices
 * appends a whole new set rather than leaving gaps.
 */
export const referralRelinkReactor = defineReactor({
  name: 'referral_stays_relink',
  eventTypes: ['ReferralAdmissionPeriodChanged'],
  batchSize: 10,
  async handle(events, { db, store, signal }) {
    for (const changed of events) {
      ReferralAdmissionPeriodChanged.parse(changed.data);
      const tenantId = changed.metadata.tenant_id;
      const metadata = { ...changed.metadata, causation_id: changed.id };
      // The projection first takes the change itself (and has its tables): the slices then link with it.
      if (!(await waitForPosition(db, [referralsProjection.name], changed.position, 10_000, signal)))
        throw new Error(`referral re-link: the referrals projection did not reach the change ${changed.id}`);
      const { rows } = await sql<{ n: string }>`
        SELECT count(*)::text AS n FROM rm.hospital_admissions WHERE tenant_id = ${tenantId}`.execute(db.kysely);
      const buckets = Math.min(maxSlices, Math.max(1, Math.ceil(Number(rows[0]?.n ?? 0) / staysPerSlice)));
      // Not the setting's stream: a slice must not move the version an owner's next save is checked against.
      const stream = streamId(referralStaysRelinkAggregate, tenantId);
      const idOf = (key: string) => uuidV5(eventIdNamespace, `${changed.id}\u0000${buckets}\u0000${key}`);
      const ctx = { db, store, signal };
      await appendInTurn(
        ctx,
        stream,
        metadata,
        idOf,
        Array.from({ length: buckets }, (_, bucket) => ({
          type: 'ReferralStaysRelinkRequested',
          data: { change_id: changed.id, bucket, buckets },
          key: String(bucket),
        })),
      );
      await appendInTurn(ctx, stream, metadata, idOf, await rollupSteps(db, tenantId, changed.id));
      await appendInTurn(ctx, stream, metadata, idOf, [
        { type: 'ReferralStaysRelinkCompleted', data: { change_id: changed.id }, key: 'end' },
      ]);
    }
  },
});
