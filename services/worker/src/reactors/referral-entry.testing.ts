import { randomUUID } from 'node:crypto';
import type { EventMetadata } from '@renkei/event-store';
import { readStreamOrEmpty, streamId, type EventStore, type RecordedEvent } from '@renkei/event-store';

/** A referral entered by hand on an institution's page, as the command service appends it; its event. */
export async function enterReferral(
  store: EventStore,
  entry: { institutionId: string; institutionCode: string; date: string; patient: string },
  metadata: EventMetadata,
): Promise<RecordedEvent> {
  const referralId = randomUUID();
  const stream = streamId('referral_entry', referralId);
  await store.append(
    stream,
    [
      {
        type: 'ReferralEntered',
        data: {
          referral_id: referralId,
          referral: {
            identity: `manual:${referralId}`,
            row_number: 0,
            referral_date: entry.date,
            patient_id: entry.patient,
            patient_key: entry.patient,
            medical_institution_id: entry.institutionId,
            institution_code: entry.institutionCode,
            institution_name: 'x',
            from_department: null,
            from_doctor: null,
            to_department: null,
            own_department_id: null,
            to_doctor: null,
            purpose: null,
            first_visit: null,
            source_id: null,
          },
        },
        metadata,
      },
    ],
    { expectedRevision: 'no_stream' },
  );
  return (await readStreamOrEmpty(store, stream, metadata.tenant_id)).at(-1)!;
}
