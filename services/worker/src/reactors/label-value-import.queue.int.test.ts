import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { parseLabelValueImportEvent, type LabelValueImportFinished } from '@renkei/domain';
import {
  createPostgresEventStore,
  newEventMetadata,
  streamId,
  type EventStore,
  type NewEvent,
} from '@renkei/event-store';
import { buildInstitutionCode, importInstitutionMaster } from '@renkei/institution-master';
import { migrateProjections, startReactors } from '@renkei/projections';
import { createLabelValueImportReactor, labelValueChunkRows } from './label-value-import.reactor.ts';

// The worker's import queue end to end: uploads recorded as events, the reactor and its queue running.
let db: TestDatabase;
let store: EventStore;
let dir: string;
const institutions = 100;
const code = (n: number) =>
  buildInstitutionCode({ prefectureCode: 22, scoreTable: 1, districtNumber: 2, institutionNumber: 1000 + n });
const labelName = '医師数';
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

async function tenantWithLabel(): Promise<string> {
  const tenant = randomUUID();
  await sql`INSERT INTO rm.medical_institution_labels VALUES (${tenant}, ${randomUUID()}, ${labelName}, 'integer', '[]'::jsonb, '[]'::jsonb)`.execute(
    db.kysely,
  );
  return tenant;
}

/** A file of `rows` rows cycling through the institutions; every row changes its institution's value. */
function file(rows: number): string {
  const lines = [`医療機関コード,${labelName}`];
  for (let i = 0; i < rows; i++) lines.push(`${code((i % institutions) + 1)},${i + 1}`);
  const target = path.join(dir, `${randomUUID()}.csv`);
  fs.writeFileSync(target, lines.join('\n'));
  return target;
}

async function upload(tenant: string, storedPath: string): Promise<string> {
  const importId = randomUUID();
  await store.append(
    streamId('medical_institution_label_value_import', importId),
    [
      {
        type: 'LabelValueImportRequested',
        data: { import_id: importId, filename: 'x.csv', stored_path: storedPath, encoding: 'utf-8' },
        metadata: newEventMetadata(tenant),
      },
    ],
    { expectedRevision: 'no_stream' },
  );
  return importId;
}

const importEvents = async (tenant: string, importId: string) => {
  try {
    return await store.readStream(streamId('medical_institution_label_value_import', importId), { tenantId: tenant });
  } catch {
    return [];
  }
};
const finished = async (tenant: string, importId: string) =>
  (await importEvents(tenant, importId)).find((e) => e.type === 'LabelValueImportFinished');

async function until<T>(check: () => Promise<T | undefined | false>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-import-queue-'));
  const master = path.join(dir, 'master.csv');
  fs.writeFileSync(
    master,
    Array.from(
      { length: institutions },
      (_, i) => `${code(i + 1)},テスト病院${i + 1},,,静岡県静岡市葵区追手町${i + 1},,,,一般病院,100,内科,,,開設`,
    ).join('\n'),
  );
  await importInstitutionMaster(db, master);
  await sql`CREATE SCHEMA IF NOT EXISTS rm`.execute(db.kysely);
  await sql`CREATE TABLE rm.medical_institution_labels (tenant_id uuid, id uuid, name text, component_type text, selections jsonb, areas jsonb)`.execute(
    db.kysely,
  );
  await sql`CREATE TABLE rm.own_departments (tenant_id uuid, id uuid, name text)`.execute(db.kysely);
  await migrateProjections(db);
  // Stands for a labels read model that has passed every upload.
  await sql`
    INSERT INTO rm.projection_checkpoints (name, suffix, version, state, tables, position_primary, position_secondary)
    VALUES ('medical_institution_crm', 'v1', 1, 'live', '{}', 9223372036854775807, 0)`.execute(db.kysely);
});

afterAll(async () => {
  await store?.close();
  await db?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('label value import queue', () => {
  it("parks an import that keeps failing, reports it failed, and another tenant's import completes", async () => {
    const poisoned = await tenantWithLabel();
    const healthy = await tenantWithLabel();
    // An event the store refuses for one tenant: a stand-in for any event a projection or the store cannot take.
    const refused = (events: NewEvent[]) =>
      events.some((e) => e.metadata.tenant_id === poisoned && e.type === 'MedicalInstitutionLabelValuesImported');
    const refusing: EventStore = {
      ...store,
      append: (stream, events, options) =>
        refused(events) ? Promise.reject(new Error('invalid input syntax')) : store.append(stream, events, options),
      appendMany: (appends) =>
        appends.some((a) => refused(a.events))
          ? Promise.reject(new Error('invalid input syntax'))
          : store.appendMany(appends),
    };
    const a = await upload(poisoned, file(3));
    const b = await upload(healthy, file(2));
    const reactor = createLabelValueImportReactor({ retryBaseMs: 5, pollIntervalMs: 10 });
    const running = startReactors({ db, store: refusing, reactors: [reactor], pollIntervalMs: 10, logger: silent });
    try {
      const done = await until(() => finished(healthy, b));
      expect(done.data).toMatchObject({ status: 'completed', imported_row_count: 2 });
      const failed = await until(() => finished(poisoned, a));
      expect(failed.data as LabelValueImportFinished).toMatchObject({
        status: 'failed',
        imported_row_count: 0,
        error: { message: expect.stringContaining('中断しました') },
      });
      const { rows } = await sql<{ tenant_id: string; error: string }>`
        SELECT tenant_id::text, error FROM rm.reactor_parked_events
         WHERE reactor = 'medical_institution_label_value_import'`.execute(db.kysely);
      expect(rows).toEqual([{ tenant_id: poisoned, error: 'Error: invalid input syntax' }]);
    } finally {
      await running.stop();
    }
  });

  it('runs a small import of one tenant while a large import of another is under way', async () => {
    const big = await tenantWithLabel();
    const small = await tenantWithLabel();
    // Large enough that it cannot end while the small upload is picked up, even on a loaded machine.
    const large = await upload(big, file(20_000));
    // Each of the large import's appends takes a quarter of a second longer, so its ten
    // chunks cannot all land before the small upload is picked up, however fast the machine.
    const slowed = (events: NewEvent[]) => events.some((e) => e.metadata.tenant_id === big);
    const pause = () => new Promise((r) => setTimeout(r, 250));
    const slow: EventStore = {
      ...store,
      append: async (stream, events, options) => {
        if (slowed(events)) await pause();
        return store.append(stream, events, options);
      },
      appendMany: async (appends) => {
        if (appends.some((a) => slowed(a.events))) await pause();
        return store.appendMany(appends);
      },
    };
    const running = startReactors({
      db,
      store: slow,
      reactors: [createLabelValueImportReactor({ pollIntervalMs: 10, chunkSlots: 1 })],
      pollIntervalMs: 10,
      logger: silent,
    });
    try {
      // The large import is under way (its first chunk recorded) before the small one is uploaded.
      await until(async () =>
        (await importEvents(big, large)).some((e) => e.type === 'MedicalInstitutionLabelValuesImported'),
      );
      const tiny = await upload(small, file(2));
      const smallDone = await until(() => finished(small, tiny));
      const bigDone = await until(() => finished(big, large));
      expect(smallDone.data).toMatchObject({ status: 'completed', imported_row_count: 2 });
      expect(bigDone.data).toMatchObject({ status: 'completed', imported_row_count: 20_000 });
      // The small one did not wait for the large one to end.
      const chunksAfterSmall = (await importEvents(big, large)).filter(
        (e) => e.type === 'MedicalInstitutionLabelValuesImported' && e.created_at > smallDone.created_at,
      );
      expect(chunksAfterSmall.length).toBeGreaterThan(0);
    } finally {
      await running.stop();
    }
  });

  it('stops between chunks and, started again, finishes the import with every row applied exactly once', async () => {
    const tenant = await tenantWithLabel();
    const importId = await upload(tenant, file(5_000));
    // The first run's second chunk is held until the stop has been asked for, so the stop falls between
    // chunks whatever the machine's speed (three chunks can otherwise all land before a poll sees one).
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const laterChunk = (events: NewEvent[]) =>
      events.some((e) => e.type === 'MedicalInstitutionLabelValuesImported' && (e.data as { chunk: number }).chunk > 0);
    const holding: EventStore = {
      ...store,
      append: async (stream, events, options) => {
        if (laterChunk(events)) await released;
        return store.append(stream, events, options);
      },
      appendMany: async (appends) => {
        if (appends.some((a) => laterChunk(a.events))) await released;
        return store.appendMany(appends);
      },
    };
    const start = (using: EventStore) =>
      startReactors({
        db,
        store: using,
        reactors: [createLabelValueImportReactor({ pollIntervalMs: 10 })],
        pollIntervalMs: 10,
        logger: silent,
      });
    const first = start(holding);
    await until(async () =>
      (await importEvents(tenant, importId)).some((e) => e.type === 'MedicalInstitutionLabelValuesImported'),
    );
    const stopped = first.stop();
    release();
    await stopped;
    const atStop = await importEvents(tenant, importId);
    expect(atStop.some((e) => e.type === 'LabelValueImportFinished')).toBe(false);

    const second = start(store);
    try {
      const done = await until(() => finished(tenant, importId));
      expect(done.data).toMatchObject({ status: 'completed', imported_row_count: 5_000, failed_row_count: 0 });
      const chunks = (await importEvents(tenant, importId))
        .map((e) => parseLabelValueImportEvent(e))
        .flatMap((e) => (e.type === 'MedicalInstitutionLabelValuesImported' ? [e.data] : []));
      expect(chunks.map((c) => c.chunk)).toEqual([...Array(Math.ceil(5_000 / labelValueChunkRows)).keys()]);
      // Every row once, in file order.
      expect(chunks.flatMap((c) => c.rows.map((r) => r.row_number))).toEqual(
        Array.from({ length: 5_000 }, (_, i) => i + 1),
      );
    } finally {
      await second.stop();
    }
  });
});
