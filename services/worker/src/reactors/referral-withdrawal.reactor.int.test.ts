import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, streamId, type EventStore } from '@renkei/event-store';
import { startProjections } from '@renkei/projections';
import { referralsProjection } from '@renkei/read-models';
import type { ReferralFact } from '@renkei/domain';
import { referralWithdrawalReactor } from './referral-withdrawal.reactor.ts';

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
const clinic = randomUUID();
const metadata = { tenant_id: tenant, account_id: null, correlation_id: tenant, causation_id: null, schema_version: 1 };
const referral = (identity: string, to_department: string): ReferralFact => ({
  identity,
  row_number: 2,
  referral_date: '2025-06-02',
  patient_id: identity,
  patient_key: identity,
  medical_institution_id: clinic,
  institution_code: null,
  institution_name: '駿河クリニック',
  from_department: null,
  from_doctor: null,
  to_department,
  own_department_id: null,
  to_doctor: null,
  purpose: null,
  first_visit: true,
  source_id: null,
});

/** An upload as the worker leaves it: requested, one chunk of rows, finished. */
async function uploaded(importId: string, referrals: ReferralFact[]) {
  await store.append(
    streamId('referral_data_import', importId),
    [
      {
        type: 'ReferralDataImportRequested',
        data: {
          import_id: importId,
          import_type: 'referral',
          filename: `${importId}.csv`,
          stored_path: '/x',
          mapping: null,
        },
        metadata,
      },
      {
        type: 'ReferralsImported',
        data: {
          import_id: importId,
          chunk: 0,
          imported_row_count: referrals.length,
          failed_row_count: 0,
          errors: [],
          referrals,
        },
        metadata,
      },
      {
        type: 'ReferralDataImportFinished',
        data: {
          import_id: importId,
          status: 'completed',
          imported_row_count: referrals.length,
          failed_row_count: 0,
          unprocessed_row_count: 0,
          abortion_row_number: null,
          error: null,
        },
        metadata,
      },
    ],
    { expectedRevision: 'no_stream' },
  );
}

describe('referral data withdrawal reactor', () => {
  it('takes back the rows only the withdrawn upload holds, once, and the rollups follow', async () => {
    // October's export, then the corrected re-export: one row's department was fixed (a new identity,
    // since list rows are identified by their content), the other row is the same.
    const first = randomUUID();
    const corrected = randomUUID();
    await uploaded(first, [referral('same', '外科'), referral('wrong', '内科')]);
    await uploaded(corrected, [referral('same', '外科'), referral('fixed', '整形外科')]);
    const stream = streamId('referral_data_withdrawal', first);
    await store.append(
      stream,
      [
        {
          type: 'ReferralDataImportWithdrawalRequested',
          data: { import_id: first, import_type: 'referral' },
          metadata,
        },
      ],
      { expectedRevision: 'no_stream' },
    );
    const [requested] = await store.readStream(stream, { tenantId: tenant });
    await referralWithdrawalReactor.handle([requested!], { db, store });
    // A rerun (a crash before the checkpoint) appends nothing more.
    await referralWithdrawalReactor.handle([requested!], { db, store });
    const slices = await store.readStream(stream, { tenantId: tenant });
    expect(slices.map((e) => [e.type, e.data])).toEqual([
      ['ReferralDataImportWithdrawalRequested', { import_id: first, import_type: 'referral' }],
      ['ReferralDataImportWithdrawn', { import_id: first, bucket: 0, buckets: 1, rows: 20_000 }],
      ['ReferralDataImportRollupsRequested', { import_id: first, phase: 'link', bucket: 0, buckets: 1 }],
      ['ReferralDataImportRollupsRequested', { import_id: first, phase: 'rollup', bucket: 0, buckets: 1 }],
      ['ReferralDataImportWithdrawalCompleted', { import_id: first }],
    ]);

    const { rows: facts } = await sql<{ identity: string; import_id: string }>`
      SELECT identity, import_id FROM rm.referrals WHERE tenant_id = ${tenant} ORDER BY identity`.execute(db.kysely);
    expect(facts).toEqual([
      { identity: 'fixed', import_id: corrected },
      { identity: 'same', import_id: corrected },
    ]);
    const { rows: rollups } = await sql<{ n: number }>`
      SELECT sum(referral_count)::int AS n FROM rm.referral_monthly_rollups WHERE tenant_id = ${tenant}`.execute(
      db.kysely,
    );
    expect(rollups).toEqual([{ n: 2 }]);
    const { rows: records } = await sql<{ id: string; withdrawn: boolean }>`
      SELECT id, withdrawn_at IS NOT NULL AS withdrawn FROM rm.referral_data_imports WHERE tenant_id = ${tenant}`.execute(
      db.kysely,
    );
    expect(new Map(records.map((r) => [r.id, r.withdrawn]))).toEqual(
      new Map([
        [first, true],
        [corrected, false],
      ]),
    );
  });
});
