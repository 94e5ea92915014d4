import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { blankLabelValue, parseLabelValueImportEvent, type LabelValueImportFinished } from '@renkei/domain';
import {
  comparePositions,
  createPostgresEventStore,
  newEventMetadata,
  streamId,
  type EventStore,
} from '@renkei/event-store';
import { buildInstitutionCode, importInstitutionMaster, institutionIdFromCode } from '@renkei/institution-master';
import { migrateProjections } from '@renkei/projections';
import { labelValueChunkRows, runLabelValueImport } from './label-value-import.reactor.ts';

let db: TestDatabase;
let store: EventStore;
let dir: string;
const tenant = randomUUID();
const code = (n: number) =>
  buildInstitutionCode({ prefectureCode: 22, scoreTable: 1, districtNumber: 2, institutionNumber: 1000 + n });
const labels = { level: randomUUID(), doctors: randomUUID(), since: randomUUID(), memo: randomUUID() };
const choiceA = randomUUID();

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-import-'));
  const master = path.join(dir, 'master.csv');
  fs.writeFileSync(
    master,
    [1, 2, 3]
      .map((n) => `${code(n)},テスト病院${n},,,静岡県静岡市葵区追手町${n},,,,一般病院,100,内科,,,開設`)
      .join('\n'),
  );
  await importInstitutionMaster(db, master);
  // The reactor reads labels and own departments from the query side's read model: given rows.
  await sql`CREATE SCHEMA IF NOT EXISTS rm`.execute(db.kysely);
  await sql`CREATE TABLE rm.medical_institution_labels (tenant_id uuid, id uuid, name text, component_type text, selections jsonb, areas jsonb)`.execute(
    db.kysely,
  );
  await sql`CREATE TABLE rm.own_departments (tenant_id uuid, id uuid, name text)`.execute(db.kysely);
  const label = (id: string, name: string, type: string, selections: unknown[] = []) =>
    sql`INSERT INTO rm.medical_institution_labels VALUES (${tenant}, ${id}, ${name}, ${type}, ${JSON.stringify(selections)}::jsonb, '[]'::jsonb)`.execute(
      db.kysely,
    );
  // The reactor waits for the read model to pass the upload: these given rows stand for one that has.
  await migrateProjections(db);
  await sql`
    INSERT INTO rm.projection_checkpoints (name, suffix, version, state, tables, position_primary, position_secondary)
    VALUES ('medical_institution_crm', 'v1', 1, 'live', '{}', 9223372036854775807, 0)`.execute(db.kysely);
  await label(labels.level, '重点度', 'select', [{ id: choiceA, label: 'A', order: 0 }]);
  await label(labels.doctors, '医師数', 'integer');
  await label(labels.since, '連携開始日', 'date');
  await label(labels.memo, '備考', 'text');
});

afterAll(async () => {
  await store?.close();
  await db?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function run(content: Buffer, encoding: 'utf-8' | 'shift_jis' | null = null) {
  const importId = randomUUID();
  const file = path.join(dir, `${importId}.csv`);
  fs.writeFileSync(file, content);
  const stream = streamId('medical_institution_label_value_import', importId);
  await store.append(
    stream,
    [
      {
        type: 'LabelValueImportRequested',
        data: { import_id: importId, filename: 'x.csv', stored_path: file, encoding },
        metadata: {
          tenant_id: tenant,
          account_id: null,
          correlation_id: importId,
          causation_id: null,
          schema_version: 1,
        },
      },
    ],
    { expectedRevision: 'no_stream' },
  );
  const [requested] = await store.readStream(stream, { tenantId: tenant });
  await runLabelValueImport(db, store, requested!);
  const events = await store.readStream(stream, { tenantId: tenant });
  return {
    events,
    finished: events.find((e) => e.type === 'LabelValueImportFinished')!.data as LabelValueImportFinished,
  };
}

/** Every import's chunk events of the tenant, read through their schema. */
async function chunkEvents() {
  const { rows } = await sql<{ stream_id: string }>`
    SELECT DISTINCT stream_id FROM es.events WHERE type = 'MedicalInstitutionLabelValuesImported'`.execute(db.kysely);
  const events = [];
  for (const r of rows) {
    for (const e of await store.readStream(r.stream_id, { tenantId: tenant })) {
      const parsed = parseLabelValueImportEvent(e);
      if (parsed.type === 'MedicalInstitutionLabelValuesImported')
        events.push({ id: e.id, position: e.position, ...parsed.data });
    }
  }
  return events.sort((a, b) => comparePositions(a.position, b.position));
}

/** The rows every import recorded for institution `n`, in the order they were recorded. */
async function importedRows(n: number, importId?: string) {
  return (await chunkEvents())
    .filter((e) => importId === undefined || e.import_id === importId)
    .flatMap((e) => e.rows.filter((r) => r.medical_institution_id === institutionIdFromCode(code(n))));
}

describe('label value import', () => {
  it('imports a Shift_JIS file; a bad row is reported by number and applied not at all', async () => {
    const csv = [
      '医療機関コード,医療機関名,重点度,医師数,連携開始日',
      `${code(1)},テスト病院1,A,12,2024/04/01`,
      `${code(2)},テスト病院2,A,十二,2024-04-01`,
      `9999999999,不明,A,1,`,
      `${code(3)},テスト病院3,,3,`,
    ].join('\r\n');
    const { finished, events } = await run(iconv.encode(csv, 'cp932'));
    expect(finished).toMatchObject({
      status: 'completed',
      imported_row_count: 2,
      failed_row_count: 2,
      unprocessed_row_count: 0,
      abortion_row_number: null,
    });
    const importId = finished.import_id;
    // One event records the chunk: its counts, its row errors and its valid rows with their values.
    const chunks = events
      .map((e) => parseLabelValueImportEvent(e))
      .flatMap((e) => (e.type === 'MedicalInstitutionLabelValuesImported' ? [e.data] : []));
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!).toMatchObject({ chunk: 0, imported_row_count: 2, failed_row_count: 2 });
    expect(chunks[0]!.errors.map((e) => e.row_number)).toEqual([3, 4]);
    expect(chunks[0]!.errors[0]!.message).toContain('医師数');
    expect(chunks[0]!.rows.map((r) => r.row_number)).toEqual([1, 4]);
    expect((await importedRows(1, importId)).map((r) => r.values)).toEqual([
      [
        { ...blankLabelValue(labels.level), selection_id: choiceA },
        { ...blankLabelValue(labels.doctors), integer_value: 12 },
        { ...blankLabelValue(labels.since), date_value: '2024-04-01' },
      ],
    ]);
    expect(await importedRows(2, importId)).toEqual([]);
    expect((await importedRows(3, importId)).map((r) => r.values)).toEqual([
      [{ ...blankLabelValue(labels.doctors), integer_value: 3 }],
    ]);
    // Only the fields a value uses are stored; the schema fills in the rest when the event is read.
    const { rows: stored } = await sql<{ data: { rows: { values: Record<string, unknown>[] }[] } }>`
      SELECT data FROM es.events WHERE type = 'MedicalInstitutionLabelValuesImported' AND data->>'import_id' = ${importId}`.execute(
      db.kysely,
    );
    expect(stored[0]!.data.rows[1]!.values).toEqual([{ label_id: labels.doctors, integer_value: 3 }]);
  });

  it('fails an empty file as a whole, naming no row', async () => {
    const { finished } = await run(Buffer.from(''));
    expect(finished).toMatchObject({
      status: 'failed',
      abortion_row_number: null,
      error: { row_number: null, message: 'ファイルにデータがありません' },
    });
  });

  it('fails at the header for an unknown label, writing nothing', async () => {
    const { finished } = await run(Buffer.from(`医療機関コード,存在しないラベル\n${code(1)},x\n`));
    expect(finished).toMatchObject({
      status: 'failed',
      abortion_row_number: 1,
      imported_row_count: 0,
      unprocessed_row_count: 1,
    });
    expect(finished.error!.message).toContain('存在しないラベル');
  });

  it('aborts midway on a broken row: earlier rows stay, the rest are unprocessed', async () => {
    const csv = `医療機関コード,医師数\n${code(2)},5\n${code(3)},"7\n${code(1)},9\n${code(1)},10\n`;
    const { finished } = await run(Buffer.from(csv));
    expect(finished.status).toBe('failed');
    expect(finished.imported_row_count).toBe(1);
    expect(finished.abortion_row_number).toBe(3);
    expect(finished.unprocessed_row_count).toBeGreaterThan(0);
    expect((await importedRows(2, finished.import_id)).map((r) => r.values[0]!.integer_value)).toEqual([5]);
  });

  it('rejects, by row number, cells no event may carry (NUL, controls, out-of-range numbers and dates) and imports the rest', async () => {
    const csv = [
      '医療機関コード,備考,医師数,連携開始日,重点度',
      `${code(1)},a\u0000b,,,`,
      `${code(2)},,,,x\u0000y`,
      `${code(3)},bell\u0007,,,`,
      `${code(1)},escape \u001b[31m,,,`,
      `${code(2)},,9999999999,,`,
      `${code(3)},,,0000-01-01,`,
      `${code(1)}\u0000,ok,,,`,
      `${code(2)},"改行は\r\n使えます",12,2024-04-01,A`,
    ].join('\n');
    const { finished, events } = await run(Buffer.from(csv));
    expect(finished).toMatchObject({ status: 'completed', imported_row_count: 1, failed_row_count: 7 });
    const errors = events
      .map((e) => parseLabelValueImportEvent(e))
      .flatMap((e) => (e.type === 'MedicalInstitutionLabelValuesImported' ? e.data.errors : []));
    expect(errors.map((e) => e.row_number)).toEqual([2, 3, 4, 5, 6, 7, 8]);
    expect(errors[0]!.message).toBe('2行目: 「備考」に使用できない文字（制御文字など）が含まれています');
    expect(errors[1]!.message).toContain('「重点度」に使用できない文字');
    expect(errors[4]!.message).toContain('「医師数」は-2147483648から2147483647までの整数で入力してください');
    expect(errors[5]!.message).toContain('「連携開始日」は西暦1000年以降の日付で入力してください');
    expect(errors[6]!.message).toContain('「医療機関コード」に使用できない文字');
    const last = (await importedRows(2, finished.import_id)).at(-1)!;
    expect(last.values.find((v) => v.label_id === labels.memo)!.text_value).toBe('改行は\r\n使えます');
  });

  it('records each chunk once with its rows: a run cut short between chunks resumes after the last one recorded', async () => {
    const importId = randomUUID();
    const file = path.join(dir, `${importId}.csv`);
    const rows = labelValueChunkRows * 2 + 7;
    const lines = ['医療機関コード,医師数'];
    for (let i = 1; i <= rows; i++) lines.push(`${code((i % 3) + 1)},${i}`);
    fs.writeFileSync(file, lines.join('\n'));
    const stream = streamId('medical_institution_label_value_import', importId);
    await store.append(
      stream,
      [
        {
          type: 'LabelValueImportRequested',
          data: { import_id: importId, filename: 'x.csv', stored_path: file, encoding: 'utf-8' },
          metadata: newEventMetadata(tenant),
        },
      ],
      { expectedRevision: 'no_stream' },
    );
    const [requested] = await store.readStream(stream, { tenantId: tenant });
    // The process dies as it records the second chunk: nothing of that chunk is stored.
    let appends = 0;
    const dying: EventStore = {
      ...store,
      appendMany: async (many) => {
        if (
          many.some((a) => a.events.some((e) => e.type === 'MedicalInstitutionLabelValuesImported')) &&
          ++appends === 2
        )
          throw new Error('killed');
        return store.appendMany(many);
      },
    };
    await expect(runLabelValueImport(db, dying, requested!)).rejects.toThrow('killed');
    expect((await chunkEvents()).filter((e) => e.import_id === importId).map((e) => e.chunk)).toEqual([0]);
    await runLabelValueImport(db, store, requested!);
    const events = await store.readStream(stream, { tenantId: tenant });
    expect(events.find((e) => e.type === 'LabelValueImportFinished')!.data).toMatchObject({
      status: 'completed',
      imported_row_count: rows,
      failed_row_count: 0,
    });
    const chunks = (await chunkEvents()).filter((e) => e.import_id === importId);
    expect(chunks.map((e) => e.chunk)).toEqual([0, 1, 2]);
    // Every row once, in file order, with its own value.
    const recorded = chunks.flatMap((e) => e.rows);
    expect(recorded.map((r) => r.row_number)).toEqual(Array.from({ length: rows }, (_, i) => i + 1));
    expect(recorded.every((r) => r.values[0]!.integer_value === r.row_number)).toBe(true);
  });
});

describe('label value import, chunks prepared ahead', () => {
  it('prepares a chunk while the one before it is being recorded, and records them one after the other in file order', async () => {
    const importId = randomUUID();
    const file = path.join(dir, `${importId}.csv`);
    const rows = labelValueChunkRows * 2 + 3;
    const lines = ['医療機関コード,医師数'];
    for (let i = 1; i <= rows; i++) lines.push(`${code((i % 3) + 1)},${i}`);
    fs.writeFileSync(file, lines.join('\n'));
    const stream = streamId('medical_institution_label_value_import', importId);
    await store.append(
      stream,
      [
        {
          type: 'LabelValueImportRequested',
          data: { import_id: importId, filename: 'x.csv', stored_path: file, encoding: 'utf-8' },
          metadata: newEventMetadata(tenant),
        },
      ],
      { expectedRevision: 'no_stream' },
    );
    const [requested] = await store.readStream(stream, { tenantId: tenant });
    // Chunk 0's append is held until the next chunk's lookup of institution codes has run: the run
    // only gets past it if it prepares chunk 1 while chunk 0 is being recorded (else it never ends).
    let lookups = 0;
    let prepared!: () => void;
    const nextLookup = new Promise<void>((resolve) => (prepared = resolve));
    // Every statement goes through the executor (kysely's private fields want their own `this`).
    const bound = <T extends object>(target: T, wrap: (property: string | symbol, value: unknown) => unknown) =>
      new Proxy(target, {
        get(t, property) {
          const value: unknown = Reflect.get(t, property, t);
          const wrapped = wrap(property, value);
          if (wrapped !== undefined) return wrapped;
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(t) : value;
        },
      });
    const watched = bound(db.kysely, (property, value) =>
      property === 'getExecutor'
        ? () =>
            bound((value as () => object).call(db.kysely), (p, executeQuery) =>
              p === 'executeQuery'
                ? (...args: unknown[]) => {
                    // The second chunk's lookup, before or while the first chunk is being recorded.
                    if ((args[0] as { sql: string }).sql.includes('ref.medical_institutions') && ++lookups === 2)
                      prepared();
                    return (executeQuery as (...a: unknown[]) => unknown).apply(
                      (value as () => object).call(db.kysely),
                      args,
                    );
                  }
                : undefined,
            )
        : undefined,
    );
    const order: number[] = [];
    const held: EventStore = {
      ...store,
      appendMany: async (many) => {
        const chunk = many.flatMap((a) => a.events).find((e) => e.type === 'MedicalInstitutionLabelValuesImported')
          ?.data as { chunk: number } | undefined;
        if (chunk) order.push(chunk.chunk);
        if (chunk?.chunk === 0) await nextLookup;
        return store.appendMany(many);
      },
    };
    await runLabelValueImport({ ...db, kysely: watched }, held, requested!);
    expect(order).toEqual([0, 1, 2]);
    const chunks = (await chunkEvents()).filter((e) => e.import_id === importId);
    expect(chunks.map((e) => e.chunk)).toEqual([0, 1, 2]);
    expect(chunks.flatMap((e) => e.rows).map((r) => r.row_number)).toEqual(
      Array.from({ length: rows }, (_, i) => i + 1),
    );
  });
});
