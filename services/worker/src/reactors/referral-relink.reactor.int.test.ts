import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, streamId, type EventStore } from '@renkei/event-store';
import { startProjections } from '@renkei/projections';
import { referralsProjection } from '@renkei/read-models';
import { referralRelinkReactor } from './referral-relink.reactor.ts';

let db: TestDatabase;
let store: EventStore;
let projections: { stop(): Promise<void> };

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  projections = startProjections({ db, store, projections: [referralsProjection] });
});

afterAll(async () => {
  await projections?.stop();
  await store?.close();
  await db?.close();
});

const tenant = randomUUID();
const metadata = { tenant_id: tenant, account_id: null, correlation_id: tenant, causation_id: null, schema_version: 1 };
const base = { chunk: 0, imported_row_count: 1, failed_row_count: 0, errors: [] };

describe('referral re-link reactor', () => {
  it('appends the re-link of a period change once (one slice for a small tenant), and the stays follow the new period', async () => {
    const importId = randomUUID();
    await store.append(
      streamId('referral_data_import', importId),
      [
        {
          type: 'ReferralsImported',
          data: {
            ...base,
            import_id: importId,
            referrals: [
              {
                identity: 'referral:1',
                row_number: 1,
                referral_date: '2025-01-01',
                patient_id: '9',
                patient_key: '9',
                medical_institution_id: randomUUID(),
                institution_code: null,
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
            ],
          },
          metadata,
        },
        {
          type: 'HospitalAdmissionsImported',
          data: {
            ...base,
            chunk: 1,
            import_id: importId,
            admissions: [
              {
                identity: 'stay:1',
                patient_key: '9',
                admission_date: '2025-05-01',
                discharge_date: null,
                department_code: null,
                icd10_code: null,
                icd10_name: null,
                kcode: null,
                operation_name: null,
                operation_date: null,
                anesthesia: null,
                dpc_code: null,
                dpc_name: null,
                scores: {},
                admission_route_code: null,
                referral_in: null,
                discharge_destination_code: null,
                discharge_outcome_code: null,
              },
            ],
          },
          metadata,
        },
      ],
      { expectedRevision: 'no_stream' },
    );
    const stream = streamId('referral_admission_period', tenant);
    await store.append(stream, [{ type: 'ReferralAdmissionPeriodChanged', data: { days: 150 }, metadata }], {
      expectedRevision: 'no_stream',
    });
    const [changed] = await store.readStream(stream, { tenantId: tenant });
    await referralRelinkReactor.handle([changed!], { db, store });
    // A rerun (a crash before the checkpoint) appends nothing more.
    await referralRelinkReactor.handle([changed!], { db, store });
    // The setting's stream keeps its version (an owner's next save is checked against it).
    expect((await store.readStream(stream, { tenantId: tenant })).map((e) => e.type)).toEqual([
      'ReferralAdmissionPeriodChanged',
    ]);
    const slices = await store.readStream(streamId('referral_stays_relink', tenant), { tenantId: tenant });
    expect(slices.map((e) => [e.type, e.data])).toEqual([
      ['ReferralStaysRelinkRequested', { change_id: changed!.id, bucket: 0, buckets: 1 }],
      ['ReferralDataImportRollupsRequested', { import_id: changed!.id, phase: 'rollup', bucket: 0, buckets: 1 }],
      ['ReferralStaysRelinkCompleted', { change_id: changed!.id }],
    ]);
    const { rows } = await sql<{ linked: boolean }>`
      SELECT referral_id IS NOT NULL AS linked FROM rm.hospital_admissions WHERE tenant_id = ${tenant}`.execute(
      db.kysely,
    );
    expect(rows).toEqual([{ linked: true }]);
    // The referral's month counts its stay once the re-link's end is applied, and nothing is left to sum.
    const { rows: counted } = await sql<{ admitted: number; pending: number }>`
      SELECT (SELECT sum(admitted_count)::int FROM rm.referral_monthly_rollups WHERE tenant_id = ${tenant}) AS admitted,
             (SELECT count(*)::int FROM rm.referral_pending_months WHERE tenant_id = ${tenant}) AS pending`.execute(
      db.kysely,
    );
    expect(counted).toEqual([{ admitted: 1, pending: 0 }]);
  });
});
