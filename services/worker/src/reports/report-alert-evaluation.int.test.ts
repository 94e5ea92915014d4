import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ReportDefinitionInput, type ReportAlertSettings } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { reportDefinitionAggregate } from '@renkei/domain';
import { createPostgresEventStore, readStreamOrEmpty, streamId, type EventStore } from '@renkei/event-store';
import { buildInstitutionCode, importInstitutionMaster, institutionIdFromCode } from '@renkei/institution-master';
import { startProjections, waitForPosition } from '@renkei/projections';
import { readModelProjections } from '@renkei/read-models';
import { enterReferral } from '../reactors/referral-entry.testing.ts';
import { createReportAlertReactor, evaluateMissingReportAlerts } from '../reactors/report-alert.reactor.ts';

const now = new Date('2026-04-10T03:00:00Z'); // 2026-04-10 in Japan
const master = Array.from({ length: 3 }, (_, i) => ({
  code: buildInstitutionCode({ prefectureCode: 22, scoreTable: 1, districtNumber: 2, institutionNumber: 3001 + i }),
  name: `アラート医院${i}`,
  address: `静岡県静岡市葵区追手町${i}`,
}));
const ids = master.map((m) => institutionIdFromCode(m.code));

let db: TestDatabase;
let store: EventStore;
let projections: { stop(): Promise<void> };
const tenantId = randomUUID();

const metadata = () => ({
  tenant_id: tenantId,
  account_id: null,
  correlation_id: randomUUID(),
  causation_id: null,
  schema_version: 1,
});

/** A completed referral upload: `counts[i]` referrals in June 2025 from institution i. Its finished event. */
async function importReferrals(counts: number[]) {
  const importId = randomUUID();
  const rows = counts.flatMap((n, i) => Array.from({ length: n }, () => ids[i]!));
  const stream = streamId('referral_data_import', importId);
  await store.append(
    stream,
    [
      {
        type: 'ReferralDataImportRequested',
        data: { import_id: importId, import_type: 'referral', filename: 'x.csv', stored_path: '/x', mapping: null },
      },
      { type: 'ReferralDataImportStarted', data: { import_id: importId, total_row_count: rows.length } },
      {
        type: 'ReferralsImported',
        data: {
          import_id: importId,
          failed_row_count: 0,
          errors: [],
          chunk: 0,
          imported_row_count: rows.length,
          referrals: rows.map((institution, i) => ({
            identity: `referral:${importId}:${i}`,
            row_number: i + 2,
            referral_date: '2025-06-10',
            patient_id: `p${i}`,
            patient_key: `p${i}`,
            medical_institution_id: institution,
            institution_code: master[ids.indexOf(institution)]!.code,
            institution_name: 'x',
            from_department: null,
            from_doctor: null,
            to_department: null,
            own_department_id: null,
            to_doctor: null,
            purpose: null,
            first_visit: null,
            source_id: null,
          })),
        },
      },
      {
        type: 'ReferralDataImportFinished',
        data: {
          import_id: importId,
          status: 'completed',
          imported_row_count: rows.length,
          failed_row_count: 0,
          unprocessed_row_count: 0,
          abortion_row_number: null,
          error: null,
        },
      },
    ].map((e) => ({ ...e, metadata: metadata() })),
    { expectedRevision: 'no_stream' },
  );
  return (await readStreamOrEmpty(store, stream, tenantId)).at(-1)!;
}

const definition = ReportDefinitionInput.parse({
  name: '紹介元',
  display_items: [{ item_key: 'medical_institution_name' }, { item_key: 'referral_count' }],
  filter_conditions: [{ item_key: 'medical_institution_name', operator: 'contains', values: ['アラート'] }],
  aggregation_settings: { period: { from: '2025-04-01', to: '2026-03-31' } },
});
const { name, ...stored } = definition;

/** A definition with alert settings, as the command service appends it; its id. */
async function define(settings: ReportAlertSettings | null, deleted = false): Promise<string> {
  const id = randomUUID();
  await store.append(
    streamId(reportDefinitionAggregate, id),
    [
      {
        type: 'ReportDefinitionCreated',
        data: { report_definition_id: id, kind: 'medical_institution_reports', name, definition: stored },
      },
      ...(settings
        ? [
            {
              type: 'ReportAlertSettingsChanged',
              data: { report_definition_id: id, alert_settings: settings, version: 1 },
            },
          ]
        : []),
      ...(deleted ? [{ type: 'ReportDefinitionDeleted', data: { report_definition_id: id } }] : []),
    ].map((e) => ({ ...e, metadata: metadata() })),
    { expectedRevision: 'no_stream' },
  );
  return id;
}

const alertWhen = (min: number, enabled = true): ReportAlertSettings => ({
  enabled,
  conditions: [{ item_key: 'referral_count', operator: 'gte', values: [String(min)] }],
  notify_user_ids: [],
});

async function alertDays(id: string): Promise<string[]> {
  const events = await readStreamOrEmpty(store, streamId(reportDefinitionAggregate, id), tenantId);
  return events.filter((e) => e.type === 'ReportAlertRaised').map((e) => (e.data as { alert_date: string }).alert_date);
}

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'report-alert-'));
  fs.writeFileSync(
    path.join(dir, 'm.csv'),
    master.map((m) => `${m.code},${m.name},,,${m.address},,,,診療所,0,内科,,,開設`).join('\n') + '\n',
  );
  await importInstitutionMaster(db, path.join(dir, 'm.csv'));
  fs.rmSync(dir, { recursive: true, force: true });
  projections = startProjections({ db, store, projections: readModelProjections });
}, 120_000);

afterAll(async () => {
  await projections?.stop();
  await store?.close();
  await db?.close();
});

describe('report alerts', () => {
  it('raises the alert of a matching report once a day after an import, and nothing else', async () => {
    const [matching, tooHigh, off, gone] = [
      await define(alertWhen(3)),
      await define(alertWhen(100)),
      await define(alertWhen(1, false)),
      await define(alertWhen(1), true),
    ];
    const finished = await importReferrals([5, 1, 0]);
    const reactor = createReportAlertReactor({ clock: () => now });
    // The definitions read model is live (a worker that starts before it is skips the import: the
    // month-turn loop catches up).
    expect(await waitForPosition(db, ['report_definitions'], finished.position, 60_000)).toBe(true);
    await reactor.handle([finished], { db, store });
    expect(await alertDays(matching)).toEqual(['2026-04-10']);
    expect(await alertDays(tooHigh)).toEqual([]);
    expect(await alertDays(off)).toEqual([]);
    expect(await alertDays(gone)).toEqual([]);
    // The same import handled again (at-least-once delivery), or another the same day: no second alert.
    await reactor.handle([finished], { db, store });
    await reactor.handle([await importReferrals([1, 0, 0])], { db, store });
    expect(await alertDays(matching)).toEqual(['2026-04-10']);
    // The next day it fires again; the definitions read model shows the latest day.
    const tomorrow = new Date('2026-04-11T03:00:00Z');
    const last = await importReferrals([0, 0, 1]);
    await createReportAlertReactor({ clock: () => tomorrow }).handle([last], { db, store });
    expect(await alertDays(matching)).toEqual(['2026-04-10', '2026-04-11']);
    const raised = (await readStreamOrEmpty(store, streamId(reportDefinitionAggregate, matching), tenantId)).at(-1)!;
    expect(await waitForPosition(db, ['report_definitions'], raised.position, 30_000)).toBe(true);
    const { rows } = await sql<{ alert_date: string; version: number }>`
      SELECT to_char(alert_date, 'YYYY-MM-DD') AS alert_date, version FROM rm.report_definitions WHERE id = ${matching}`.execute(
      db.kysely,
    );
    // An alert never moves the definition's version (a user's open edit stays current).
    expect(rows).toEqual([{ alert_date: '2026-04-11', version: 1 }]);
  });

  it('runs every enabled alert not yet run this month at the month turn, once per month and version', async () => {
    const id = await define(alertWhen(1));
    const created = (await readStreamOrEmpty(store, streamId(reportDefinitionAggregate, id), tenantId)).at(-1)!;
    expect(await waitForPosition(db, ['report_definitions'], created.position, 30_000)).toBe(true);
    const may = new Date('2026-05-01T00:00:00Z');
    expect(await evaluateMissingReportAlerts({ db, store }, may)).toBeGreaterThanOrEqual(1);
    expect(await alertDays(id)).toEqual(['2026-05-01']);
    // Run this month already: the next round runs nothing.
    expect(await evaluateMissingReportAlerts({ db, store }, new Date('2026-05-02T00:00:00Z'))).toBe(0);
    const june = new Date('2026-06-01T00:00:00Z');
    expect(await evaluateMissingReportAlerts({ db, store }, june)).toBeGreaterThanOrEqual(1);
    expect(await alertDays(id)).toEqual(['2026-05-01', '2026-06-01']);
  });

  it('runs again when referrals are entered by hand, not after a failed upload', async () => {
    // Institution 0 has 6 referrals in the period from the imports above: below 8.
    const id = await define(alertWhen(8));
    const created = (await readStreamOrEmpty(store, streamId(reportDefinitionAggregate, id), tenantId)).at(-1)!;
    expect(await waitForPosition(db, ['report_definitions'], created.position, 30_000)).toBe(true);
    const day = new Date('2026-04-20T03:00:00Z');
    const reactor = createReportAlertReactor({ clock: () => day });
    const failedId = randomUUID();
    const failedStream = streamId('referral_data_import', failedId);
    await store.append(
      failedStream,
      [
        {
          type: 'ReferralDataImportFinished',
          data: {
            import_id: failedId,
            status: 'failed',
            imported_row_count: 0,
            failed_row_count: 0,
            unprocessed_row_count: 0,
            abortion_row_number: null,
            error: { row_number: null, message: '形式が違います' },
          },
          metadata: metadata(),
        },
      ],
      { expectedRevision: 'no_stream' },
    );
    await reactor.handle(await readStreamOrEmpty(store, failedStream, tenantId), { db, store });
    expect(await alertDays(id)).toEqual([]);
    // Two referrals of institution 0 entered by hand in one batch: 8 in the period, the alert fires that day.
    const entered = [];
    for (const i of [0, 1])
      entered.push(
        await enterReferral(
          store,
          { institutionId: ids[0]!, institutionCode: master[0]!.code, date: '2025-07-01', patient: `hand${i}` },
          metadata(),
        ),
      );
    await reactor.handle(entered, { db, store });
    expect(await alertDays(id)).toEqual(['2026-04-20']);
  });
});
