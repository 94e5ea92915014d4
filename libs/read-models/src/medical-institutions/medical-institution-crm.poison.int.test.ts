import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { medicalInstitutionMemoAggregate, phaseMastersAggregate } from '@renkei/domain';
import { createPostgresEventStore, newEventMetadata, streamId, type EventStore } from '@renkei/event-store';
import { catchUpProjections, projectionStatus } from '@renkei/projections';
import { medicalInstitutionCrmProjection } from './medical-institution-crm.projection.ts';

let db: TestDatabase;
let store: EventStore;

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
});
afterAll(async () => {
  await store?.close();
  await db?.close();
});

// The events an accepted PUT /phase_masters used to store: two masters with one id. Applying them
// failed on the primary key, and before parking that stopped the projection for every tenant.
it('an event one tenant stored that the CRM read model cannot apply stops only that tenant', async () => {
  const poisoned = randomUUID();
  const other = randomUUID();
  const id = randomUUID();
  await store.append(
    streamId(phaseMastersAggregate, poisoned),
    [
      {
        type: 'PhaseMastersReplaced',
        data: {
          phase_masters: [
            { id, name: 'A', description: '' },
            { id, name: 'B', description: '' },
          ],
        },
        metadata: newEventMetadata(poisoned),
      },
    ],
    { expectedRevision: 'no_stream' },
  );
  const institution = randomUUID();
  const { position } = await store.append(
    streamId(medicalInstitutionMemoAggregate, randomUUID()),
    [
      {
        type: 'MedicalInstitutionMemoChanged',
        data: { medical_institution_id: institution, content: '次回は院長に面談', previous_content: '' },
        metadata: newEventMetadata(other),
      },
    ],
    { expectedRevision: 'no_stream' },
  );

  await catchUpProjections({ db, store, projections: [medicalInstitutionCrmProjection], until: position });

  const { rows } = await sql<{ content: string }>`
    SELECT content FROM rm.mi_notes WHERE tenant_id = ${other}`.execute(db.kysely);
  expect(rows.map((r) => r.content)).toEqual(['次回は院長に面談']);
  const [status] = await projectionStatus(db, store);
  expect(status?.parked_tenants).toEqual([
    expect.objectContaining({ tenant_id: poisoned, event_type: 'PhaseMastersReplaced' }),
  ]);
});
