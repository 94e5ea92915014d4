import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { sql } from 'kysely';
import type { LabelValueImportFinished } from '@renkei/domain';
import { createPostgresEventStore, newEventMetadata, streamId, type EventStore } from '@renkei/event-store';
import { buildInstitutionCode, importInstitutionMaster, institutionIdFromCode } from '@renkei/institution-master';
import { catchUpProjections } from '@renkei/projections';
import { medicalInstitutionCrmProjection } from '@renkei/read-models';
import { runLabelValueImport } from './label-value-import.reactor.ts';

let db: TestDatabase;
let store: EventStore;
let dir: string;
const tenant = randomUUID();
const code = buildInstitutionCode({ prefectureCode: 22, scoreTable: 1, districtNumber: 2, institutionNumber: 1001 });
const catchUp = () => catchUpProjections({ db, store, projections: [medicalInstitutionCrmProjection] });

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-import-race-'));
  const master = path.join(dir, 'master.csv');
  fs.writeFileSync(master, `${code},テスト病院,,,静岡県静岡市葵区追手町1,,,,一般病院,100,内科,,,開設\n`);
  await importInstitutionMaster(db, master);
  // The read model exists and is up to date, as on a running install, before the label is made.
  await catchUp();
});

afterAll(async () => {
  await store?.close();
  await db?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('label value import right after a label is created', () => {
  it('waits for the read model to pass the upload, so the new label is known and its value imports', async () => {
    const labelId = randomUUID();
    await store.append(
      streamId('medical_institution_label', labelId),
      [
        {
          type: 'MedicalInstitutionLabelCreated',
          data: {
            label_id: labelId,
            name: '紹介窓口',
            description: '',
            component_type: 'text',
            selections: [],
            areas: [],
          },
          metadata: newEventMetadata(tenant),
        },
      ],
      { expectedRevision: 'no_stream' },
    );
    // Uploaded at once: the projection has not applied the label yet.
    const importId = randomUUID();
    const file = path.join(dir, `${importId}.csv`);
    fs.writeFileSync(file, `医療機関コード,紹介窓口\n${code},地域連携室 田中様\n`);
    const importStream = streamId('medical_institution_label_value_import', importId);
    await store.append(
      importStream,
      [
        {
          type: 'LabelValueImportRequested',
          data: { import_id: importId, filename: 'x.csv', stored_path: file, encoding: 'utf-8' },
          metadata: newEventMetadata(tenant),
        },
      ],
      { expectedRevision: 'no_stream' },
    );
    const [requested] = await store.readStream(importStream, { tenantId: tenant });

    const importing = runLabelValueImport(db, store, requested!);
    // The worker gets to the label a moment later, while the import is already running.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await catchUp();
    await importing;

    const events = await store.readStream(importStream, { tenantId: tenant });
    const finished = events.find((e) => e.type === 'LabelValueImportFinished')!.data as LabelValueImportFinished;
    expect(finished).toMatchObject({ status: 'completed', imported_row_count: 1, failed_row_count: 0 });
    // The value is in the read model the institution pages and searches read.
    await catchUp();
    const { rows } = await sql<{ label_id: string; text_value: string }>`
      SELECT label_id, text_value FROM rm.mi_label_values
       WHERE tenant_id = ${tenant} AND medical_institution_id = ${institutionIdFromCode(code)}`.execute(db.kysely);
    expect(rows).toEqual([{ label_id: labelId, text_value: '地域連携室 田中様' }]);
  });
});
