import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import type {
  CommunicationFields,
  CommunicationImportChunkProcessed,
  CommunicationImportFinished,
} from '@renkei/domain';
import { ImportedCommunication, blankLabelValue } from '@renkei/domain';
import { createPostgresEventStore, streamId, type EventStore, type RecordedEvent } from '@renkei/event-store';
import { buildInstitutionCode, importInstitutionMaster, institutionIdFromCode } from '@renkei/institution-master';
import { migrateProjections } from '@renkei/projections';
import { importedCommunicationId, runCommunicationImport } from './communication-import.reactor.ts';

let db: TestDatabase;
let store: EventStore;
let dir: string;
const tenant = randomUUID();
const otherTenant = randomUUID();
const uploader = randomUUID();
const staff = { sato: randomUUID(), suzuki: randomUUID() };
const code = (n: number) =>
  buildInstitutionCode({ prefectureCode: 22, scoreTable: 1, districtNumber: 2, institutionNumber: 2000 + n });
// A code of 北海道 (01): the one Excel hands back without its leading zero.
const sapporoCode = buildInstitutionCode({
  prefectureCode: 1,
  scoreTable: 1,
  districtNumber: 1,
  institutionNumber: 1234,
});
const labels = {
  partner: randomUUID(),
  count: randomUUID(),
  phoneOnly: randomUUID(),
  department: randomUUID(),
  deleted: randomUUID(),
};
const cardiology = randomUUID();
const choiceDirector = randomUUID();
const choiceNurse = randomUUID();

const meta = (tenantId: string, accountId: string | null = uploader) => ({
  tenant_id: tenantId,
  account_id: accountId,
  correlation_id: randomUUID(),
  causation_id: null,
  schema_version: 1,
});

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-comm-import-'));
  const master = path.join(dir, 'master.csv');
  fs.writeFileSync(
    master,
    [
      ...[1, 2, 3].map((n) => `${code(n)},連携テスト病院${n},,,静岡県静岡市葵区追手町${n},,,,一般病院,100,内科,,,開設`),
      `${sapporoCode},札幌連携テスト医院,,,北海道札幌市中央区北1条西2丁目,,,,無床診療所,0,内科,,,開設`,
    ].join('\n'),
  );
  await importInstitutionMaster(db, master);
  // The reactor reads labels, departments and staff from the query side's read models: given rows.
  await sql`CREATE SCHEMA IF NOT EXISTS rm`.execute(db.kysely);
  await sql`CREATE TABLE rm.communication_labels (tenant_id uuid, id uuid, name text, communication_type text,
    component_type text, selections jsonb, is_required boolean, deleted_at timestamptz)`.execute(db.kysely);
  await sql`CREATE TABLE rm.own_departments (tenant_id uuid, id uuid, name text)`.execute(db.kysely);
  await sql`CREATE TABLE rm.communication_import_accounts (tenant_id uuid, account_id uuid, name text, email text)`.execute(
    db.kysely,
  );
  const label = (
    id: string,
    name: string,
    type: string,
    component: string,
    required: boolean,
    selections: unknown[],
    deletedAt: Date | null = null,
  ) =>
    sql`INSERT INTO rm.communication_labels VALUES (${tenant}, ${id}, ${name}, ${type}, ${component}, ${JSON.stringify(selections)}::jsonb, ${required}, ${deletedAt})`.execute(
      db.kysely,
    );
  await label(labels.partner, '面談相手', 'visit', 'select', true, [
    { id: choiceDirector, label: '院長', order: 0 },
    { id: choiceNurse, label: '看護師', order: 1 },
  ]);
  await label(labels.count, '資料部数', 'visit', 'integer', false, []);
  await label(labels.phoneOnly, '通話時間', 'phone', 'text', false, []);
  await label(labels.department, '紹介先診療科', 'visit', 'own_department', false, []);
  await label(labels.deleted, '旧ラベル', 'visit', 'text', false, [], new Date('2026-04-01T00:00:00Z'));
  await sql`INSERT INTO rm.own_departments VALUES (${tenant}, ${cardiology}, '循環器内科')`.execute(db.kysely);
  for (const [id, name, email, t] of [
    [uploader, '取込 太郎', 'owner@example.jp', tenant],
    [staff.sato, '佐藤 花子', 'sato@example.jp', tenant],
    [staff.suzuki, '鈴木 一郎', 'suzuki@example.jp', tenant],
  ] as const)
    await sql`INSERT INTO rm.communication_import_accounts VALUES (${t}, ${id}, ${name}, ${email})`.execute(db.kysely);
  // Where imported records live until their first write (the command service's migration 0009).
  await sql`CREATE SCHEMA IF NOT EXISTS cmd`.execute(db.kysely);
  await sql`CREATE TABLE cmd.imported_communications (tenant_id uuid NOT NULL, communication_id uuid NOT NULL,
    rows_id uuid NOT NULL, PRIMARY KEY (tenant_id, communication_id))`.execute(db.kysely);
  // The reactor waits for the read models to pass the upload: these checkpoints stand for ones that have.
  await migrateProjections(db);
  for (const name of ['communications', 'medical_institution_crm', 'communication_imports'])
    await sql`
      INSERT INTO rm.projection_checkpoints (name, suffix, version, state, tables, position_primary, position_secondary)
      VALUES (${name}, 'v1', 1, 'live', '{}', 9223372036854775807, 0)`.execute(db.kysely);
});

afterAll(async () => {
  await store?.close();
  await db?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A label value as a record stores it: every field, the given ones set. */
const labelValue = (labelId: string, patch: object) => ({ ...blankLabelValue(labelId), ...patch });

/** A visit already recorded (by hand, not by an import), with these label values. */
async function storeVisit(id: string, labelValues: object[]) {
  await store.append(
    streamId('communication', id),
    [
      {
        type: 'CommunicationCreated',
        data: {
          communication_id: id,
          medical_institution_id: institutionIdFromCode(code(1)),
          communication_type: 'visit',
          acted_date: '2026-04-01',
          category: null,
          purpose: null,
          story: '面談',
          event_name: null,
          memo: '',
          other_memo: '',
          person_in_charge_hospital: null,
          attendee: null,
          is_doctor_attended: false,
          user_id: staff.sato,
          attachment_ids: [],
          label_values: labelValues,
          tasks: [],
        },
        metadata: meta(tenant),
      },
    ],
    { expectedRevision: 'no_stream' },
  );
}

async function request(content: Buffer, mode: 'create' | 'update', encoding: 'utf-8' | 'shift_jis' | null = null) {
  const importId = randomUUID();
  const file = path.join(dir, `${importId}.csv`);
  fs.writeFileSync(file, content);
  const stream = streamId('communication_import', importId);
  await store.append(
    stream,
    [
      {
        type: 'CommunicationImportRequested',
        data: { import_id: importId, filename: 'x.csv', stored_path: file, encoding, mode },
        metadata: meta(tenant),
      },
    ],
    { expectedRevision: 'no_stream' },
  );
  const [requested] = await store.readStream(stream, { tenantId: tenant });
  return { importId, stream, requested: requested! };
}

async function run(content: Buffer, mode: 'create' | 'update' = 'create', runStore: EventStore = store) {
  const r = await request(content, mode);
  await runCommunicationImport(db, runStore, r.requested);
  return { ...r, ...(await outcome(r.stream)) };
}

async function outcome(stream: string) {
  const events = await store.readStream(stream, { tenantId: tenant });
  return {
    events,
    finished: events.find((e) => e.type === 'CommunicationImportFinished')?.data as CommunicationImportFinished,
    chunks: events
      .filter((e) => e.type === 'CommunicationImportChunkProcessed')
      .map((e) => e.data as CommunicationImportChunkProcessed),
  };
}

const communicationEvents = async (id: string, tenantId = tenant): Promise<RecordedEvent[]> => {
  try {
    return await store.readStream(streamId('communication', id), { tenantId });
  } catch {
    return [];
  }
};

/** Every `CommunicationsImported` of an import's chunks, as stored. */
async function importedChunks(importId: string): Promise<RecordedEvent[]> {
  const { chunks } = await outcome(streamId('communication_import', importId));
  const rowsIds = [...new Set(chunks.flatMap((c) => (c.rows_id ? [c.rows_id] : [])))];
  return (await Promise.all(rowsIds.map(readRows))).flat();
}
const readRows = async (rowsId: string) => {
  try {
    return await store.readStream(streamId('communication_import_rows', rowsId), { tenantId: tenant });
  } catch {
    return [];
  }
};
/** An imported record as its chunk holds it (undefined: no chunk holds it). */
async function importedRecord(importId: string, id: string): Promise<CommunicationFields | undefined> {
  const events = await importedChunks(importId);
  return events
    .flatMap((e) => (e.data as { records: unknown[] }).records.map((r) => ImportedCommunication.parse(r)))
    .find((r) => r.communication_id === id);
}

const createCsv = [
  '医療機関コード,医療機関名,活動日,種別,担当者,内容,医師面談,面談相手,資料部数',
  `${code(1)},,2026/04/01,訪問,sato@example.jp,院長と面談,あり,院長,3`,
  `,連携テスト病院2,2026-04-02,新規訪問,鈴木一郎,初回の挨拶,,,`,
  `${code(3)},,2026-04-03,訪問,,面談相手が空,,,`,
  `9999999999,,2026-04-04,電話,,不明な医療機関,,,`,
  `${code(1)},,2026-04-05,来院,,種別違い,,,`,
].join('\r\n');

describe('communication import (create)', () => {
  it('creates records from a Shift_JIS file; bad rows are reported by number and create nothing', async () => {
    const { importId, finished, chunks } = await run(iconv.encode(createCsv, 'cp932'));
    expect(finished).toMatchObject({
      status: 'completed',
      imported_row_count: 2,
      failed_row_count: 3,
      unprocessed_row_count: 0,
    });
    expect(chunks.flatMap((c) => c.errors)).toEqual([
      { row_number: 4, message: '4行目: 「面談相手」を入力してください' },
      { row_number: 5, message: '5行目: 医療機関コード「9999999999」は登録されていません' },
      { row_number: 6, message: '6行目: 種別「来院」はありません' },
    ]);
    const ids = [importedCommunicationId(importId, 1), importedCommunicationId(importId, 2)];
    expect(chunks.flatMap((c) => c.communication_ids).sort()).toEqual([...ids].sort());
    // The chunk's records are one event on the chunk's rows stream; the records have no streams yet.
    const chunkEvents = await importedChunks(importId);
    expect(chunkEvents.map((e) => e.type)).toEqual(['CommunicationsImported']);
    expect(await communicationEvents(ids[0]!)).toEqual([]);
    const first = await importedRecord(importId, ids[0]!);
    expect(first).toMatchObject({
      medical_institution_id: institutionIdFromCode(code(1)),
      communication_type: 'visit',
      acted_date: '2026-04-01',
      story: '院長と面談',
      is_doctor_attended: true,
      user_id: staff.sato,
    });
    expect(first!.label_values).toEqual([
      expect.objectContaining({ label_id: labels.partner, selection_id: choiceDirector }),
      expect.objectContaining({ label_id: labels.count, integer_value: 3 }),
    ]);
    // Where the command side finds each record until its first write.
    const { rows: index } = await sql<{ communication_id: string; rows_id: string }>`
      SELECT communication_id, rows_id FROM cmd.imported_communications WHERE tenant_id = ${tenant}
         AND communication_id = ANY(${ids}::uuid[])`.execute(db.kysely);
    expect(index.map((r) => r.communication_id).sort()).toEqual([...ids].sort());
    expect(new Set(index.map((r) => r.rows_id))).toEqual(new Set(chunks.map((c) => c.rows_id)));
    // Staff by name (spaces ignored), institution by its exact name; no staff named: the uploader.
    const second = await importedRecord(importId, ids[1]!);
    expect(second).toMatchObject({
      medical_institution_id: institutionIdFromCode(code(2)),
      communication_type: 'new_visit',
      user_id: staff.suzuki,
      is_doctor_attended: false,
    });
    for (const n of [3, 4, 5]) {
      expect(await communicationEvents(importedCommunicationId(importId, n))).toEqual([]);
      expect(await importedRecord(importId, importedCommunicationId(importId, n))).toBeUndefined();
    }
  });

  it('reads 医師面談 as met, not met, or a row error, never an unknown word as not met', async () => {
    const csv = [
      '医療機関コード,活動日,種別,内容,医師面談,面談相手',
      `${code(1)},2026-04-11,訪問,全角の有無, あり ,院長`,
      `${code(1)},2026-04-12,訪問,なしと書いた,なし,院長`,
      `${code(1)},2026-04-13,訪問,バツと書いた,×,院長`,
      `${code(1)},2026-04-14,訪問,わからない語,たぶん,院長`,
    ].join('\r\n');
    const { importId, finished, chunks } = await run(Buffer.from(csv, 'utf8'));
    expect(finished).toMatchObject({ imported_row_count: 3, failed_row_count: 1 });
    expect(chunks.flatMap((c) => c.errors)).toEqual([
      { row_number: 5, message: '5行目: 医師面談「たぶん」は「あり」「なし」または空欄で入力してください' },
    ]);
    const attended = async (row: number) =>
      (await importedRecord(importId, importedCommunicationId(importId, row)))?.is_doctor_attended;
    expect([await attended(1), await attended(2), await attended(3), await attended(4)]).toEqual([
      true,
      false,
      false,
      undefined,
    ]);
  });

  it('finds an institution of 北海道 whose code a spreadsheet stripped of its leading zero', async () => {
    const csv = [
      '医療機関コード,活動日,種別,内容,面談相手',
      `${sapporoCode.slice(1)},2026-04-15,訪問,ゼロの落ちたコード,院長`,
      // Nine digits that are no code with a zero before them either: still a row error.
      `${sapporoCode.slice(1, 9)}${(Number(sapporoCode[9]) + 1) % 10},2026-04-15,訪問,検証番号が合わない,院長`,
    ].join('\r\n');
    const { importId, finished, chunks } = await run(Buffer.from(csv, 'utf8'));
    expect(finished).toMatchObject({ imported_row_count: 1, failed_row_count: 1 });
    expect(chunks.flatMap((c) => c.errors).map((e) => e.row_number)).toEqual([3]);
    expect((await importedRecord(importId, importedCommunicationId(importId, 1)))?.story).toBe('ゼロの落ちたコード');
  });

  it('resumes a run cut short after its records were appended without creating any twice', async () => {
    const { requested, stream, importId } = await request(Buffer.from(createCsv, 'utf8'), 'create');
    // The first run dies before recording its chunk (a kill -9 between the appends and the progress).
    const dying: EventStore = {
      ...store,
      append: (s, events, options) =>
        events.some((e) => e.type === 'CommunicationImportChunkProcessed')
          ? Promise.reject(new Error('killed'))
          : store.append(s, events, options),
      // The chunk event leaves in one statement with the rows' event: the rows go in, the chunk event is lost.
      appendMany: async (appends) => {
        const chunk = (a: (typeof appends)[number]) =>
          a.events.some((e) => e.type === 'CommunicationImportChunkProcessed');
        await store.appendMany(appends.filter((a) => !chunk(a)));
        if (appends.some(chunk)) throw new Error('killed');
        return store.appendMany(appends);
      },
    };
    await expect(runCommunicationImport(db, dying, requested)).rejects.toThrow('killed');
    const rowsId = (
      await sql<{ rows_id: string }>`
        SELECT rows_id FROM cmd.imported_communications WHERE tenant_id = ${tenant}
           AND communication_id = ${importedCommunicationId(importId, 1)}`.execute(db.kysely)
    ).rows[0]!.rows_id;
    expect(await readRows(rowsId)).toHaveLength(1);
    await runCommunicationImport(db, store, requested);
    const { finished, chunks } = await outcome(stream);
    expect(finished).toMatchObject({ status: 'completed', imported_row_count: 2, failed_row_count: 3 });
    // The rerun recorded the chunk once and appended its records' event no second time.
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.rows_id).toBe(rowsId);
    const stored = await readRows(rowsId);
    expect(stored).toHaveLength(1);
    const records = (stored[0]!.data as { records: CommunicationFields[] }).records.map((r) => r.communication_id);
    expect(records).toEqual([importedCommunicationId(importId, 1), importedCommunicationId(importId, 2)]);
    expect(await communicationEvents(importedCommunicationId(importId, 1))).toEqual([]);
  });

  it('resumes a run killed after noting its records and before any append, with each record once', async () => {
    const { requested, stream, importId } = await request(Buffer.from(createCsv, 'utf8'), 'create');
    // Killed between the index rows and the chunk's one statement: nothing of the chunk is stored.
    const dying: EventStore = { ...store, appendMany: () => Promise.reject(new Error('killed')) };
    await expect(runCommunicationImport(db, dying, requested)).rejects.toThrow('killed');
    expect(await importedChunks(importId)).toEqual([]);
    await runCommunicationImport(db, store, requested);
    const { finished } = await outcome(stream);
    expect(finished).toMatchObject({ status: 'completed', imported_row_count: 2, failed_row_count: 3 });
    const stored = await importedChunks(importId);
    expect(stored).toHaveLength(1);
    const ids = stored.flatMap((e) =>
      (e.data as { records: CommunicationFields[] }).records.map((r) => r.communication_id),
    );
    expect(ids).toEqual([importedCommunicationId(importId, 1), importedCommunicationId(importId, 2)]);
    // A third run of a finished import appends nothing.
    await runCommunicationImport(db, store, requested);
    expect(await importedChunks(importId)).toHaveLength(1);
    expect((await outcome(stream)).chunks).toHaveLength(1);
  });

  it('resumes a many-chunk run killed at its second chunk: every chunk recorded once, every record once', async () => {
    const rows = Array.from({ length: 4_500 }, (_, i) => `${code(1 + (i % 3))},,2026-04-01,電話,,通話${i},,,`);
    const { requested, stream, importId } = await request(
      Buffer.from([createCsv.split('\r\n')[0], ...rows].join('\r\n'), 'utf8'),
      'create',
    );
    let calls = 0;
    // The second chunk's statement fails (a kill -9 while the third chunk is being decided beside it).
    const dying: EventStore = {
      ...store,
      appendMany: (appends) => (++calls === 2 ? Promise.reject(new Error('killed')) : store.appendMany(appends)),
    };
    await expect(runCommunicationImport(db, dying, requested)).rejects.toThrow('killed');
    expect((await outcome(stream)).chunks).toHaveLength(1);
    await runCommunicationImport(db, store, requested);
    const { finished, chunks } = await outcome(stream);
    expect(finished).toMatchObject({ status: 'completed', imported_row_count: 4_500, failed_row_count: 0 });
    expect(chunks.map((c) => c.chunk)).toEqual([0, 1, 2]);
    const stored = await importedChunks(importId);
    expect(stored).toHaveLength(3);
    const ids = stored.flatMap((e) =>
      (e.data as { records: { communication_id: string }[] }).records.map((r) => r.communication_id),
    );
    expect(ids).toHaveLength(4_500);
    expect(new Set(ids).size).toBe(4_500);
    expect(ids).toEqual(Array.from({ length: 4_500 }, (_, i) => importedCommunicationId(importId, i + 1)));
  });

  it('stops at a header that is neither a field nor a label, creating nothing', async () => {
    const { finished, importId } = await run(
      Buffer.from(`医療機関コード,活動日,種別,気分\r\n${code(1)},2026-04-01,電話,良い\r\n`, 'utf8'),
    );
    expect(finished).toMatchObject({
      status: 'failed',
      abortion_row_number: 1,
      imported_row_count: 0,
      error: { row_number: 1, message: '見出し「気分」は項目名にも活動ラベル名にもありません' },
    });
    expect(await communicationEvents(importedCommunicationId(importId, 1))).toEqual([]);
  });
});

describe('communication import (update)', () => {
  it('takes back an edited search export: changed fields are updated, unknown and foreign ids are row errors', async () => {
    const created = await run(Buffer.from(createCsv, 'utf8'));
    const id = importedCommunicationId(created.importId, 1);
    const untouched = importedCommunicationId(created.importId, 2);
    const foreign = randomUUID();
    await store.append(
      streamId('communication', foreign),
      [
        {
          type: 'CommunicationCreated',
          data: {
            communication_id: foreign,
            medical_institution_id: institutionIdFromCode(code(1)),
            communication_type: 'phone',
            acted_date: '2026-04-01',
            category: null,
            purpose: null,
            story: '他テナント',
            event_name: null,
            memo: '',
            other_memo: '',
            person_in_charge_hospital: null,
            attendee: null,
            is_doctor_attended: false,
            user_id: randomUUID(),
            attachment_ids: [],
            label_values: [],
            tasks: [],
          },
          metadata: meta(otherTenant),
        },
      ],
      { expectedRevision: 'no_stream' },
    );
    const csv = [
      'ID,活動日,種別,医療機関,担当者,内容,メモ,その他メモ,医師面談,ラベル,タスク,いいね,コメント',
      `${id},2026-04-10,訪問,連携テスト病院1,佐藤 花子,内容を修正,追記メモ,,,面談相手: 看護師 / 資料部数: 5,,0,0`,
      `${untouched},2026-04-02,新規訪問,連携テスト病院2,鈴木 一郎,初回の挨拶,,,,,,0,0`,
      `${randomUUID()},2026-04-10,訪問,,,,,,,,,,`,
      `${foreign},2026-04-10,電話,,,乗っ取り,,,,,,,`,
      `${id},2026-13-01,訪問,,,日付誤り,,,,面談相手: 院長,,,`,
    ].join('\r\n');
    const { finished, chunks } = await run(iconv.encode(csv, 'cp932'), 'update');
    expect(finished).toMatchObject({ status: 'completed', imported_row_count: 2, failed_row_count: 3 });
    // The records the rows name (changed or left as they were): what an undo restores.
    expect(chunks.flatMap((c) => c.communication_ids).sort()).toEqual([id, untouched].sort());
    expect(chunks.flatMap((c) => c.errors.map((e) => e.row_number))).toEqual([4, 5, 6]);
    expect(chunks.flatMap((c) => c.errors)[2]!.message).toBe('6行目: 活動日はYYYY-MM-DD形式で入力してください');
    // The imported record's stream begins with its first write: the record as imported, then the change.
    const events = await communicationEvents(id);
    expect(events.map((e) => e.type)).toEqual(['CommunicationImportAdopted', 'CommunicationUpdated']);
    expect(events[0]!.data).toMatchObject({
      ...(await importedRecord(created.importId, id)),
      import_id: created.importId,
    });
    expect(events[1]!.data).toMatchObject({
      acted_date: '2026-04-10',
      story: '内容を修正',
      memo: '追記メモ',
      // The export writes no doctor flag as empty: the column is there, so it reads as not met.
      is_doctor_attended: false,
      user_id: staff.sato,
      medical_institution_id: institutionIdFromCode(code(1)),
      label_values: [
        expect.objectContaining({ label_id: labels.partner, selection_id: choiceNurse }),
        expect.objectContaining({ label_id: labels.count, integer_value: 5 }),
      ],
    });
    // A row that changes nothing appends nothing (the imported record still has no stream), and
    // another tenant's record is not touched.
    expect(await communicationEvents(untouched)).toEqual([]);
    expect(await communicationEvents(foreign, otherTenant)).toHaveLength(1);
  });

  it('keeps text a Shift_JIS file could not hold: the "?" its export wrote is not an edit', async () => {
    const created = await run(
      Buffer.from(
        [
          '医療機関コード,活動日,種別,内容,面談相手,通話時間',
          `${code(1)},2026-04-20,訪問,𠮷田先生と面談📞,院長,`,
          `${code(1)},2026-04-21,電話,折り返し,,📞15分`,
        ].join('\r\n'),
        'utf8',
      ),
    );
    const id = importedCommunicationId(created.importId, 1);
    const call = importedCommunicationId(created.importId, 2);
    expect((await importedRecord(created.importId, id))!.story).toBe('𠮷田先生と面談📞');
    // The Shift_JIS export of the records, their memos filled in Excel, uploaded again.
    const csv = [
      'ID,内容,メモ,ラベル',
      `${id},?田先生と面談?,駐車場は裏手,面談相手: 院長`,
      `${call},折り返し,再度連絡,通話時間: ?15分`,
    ].join('\r\n');
    const { finished } = await run(iconv.encode(csv, 'cp932'), 'update');
    expect(finished).toMatchObject({ imported_row_count: 2, failed_row_count: 0 });
    const events = await communicationEvents(id);
    expect(events.at(-1)!.data).toMatchObject({ story: '𠮷田先生と面談📞', memo: '駐車場は裏手' });
    expect((await communicationEvents(call)).at(-1)!.data).toMatchObject({
      memo: '再度連絡',
      label_values: [expect.objectContaining({ label_id: labels.phoneOnly, text_value: '📞15分' })],
    });
    // A real edit of that text is still taken.
    const edited = ['ID,内容', `${id},?田先生と面談（訂正）`].join('\r\n');
    await run(iconv.encode(edited, 'cp932'), 'update');
    expect((await communicationEvents(id)).at(-1)!.data).toMatchObject({ story: '?田先生と面談（訂正）' });
  });

  it('takes back an export row whole: the own department by its name, deleted labels and choices as stored', async () => {
    const id = randomUUID();
    const labelValues = [
      // A choice of 面談相手 deleted since, the own department, the value of a deleted label.
      labelValue(labels.partner, { selection_id: randomUUID() }),
      labelValue(labels.department, { own_department_id: cardiology }),
      labelValue(labels.deleted, { text_value: '旧値' }),
    ];
    await storeVisit(id, labelValues);
    // The row as the search export writes it (communications.export.ts, its labelText), memo edited.
    const csv = [
      'ID,活動日,種別,医療機関,担当者,内容,メモ,その他メモ,医師面談,ラベル,タスク,いいね,コメント',
      `${id},2026-04-01,訪問,連携テスト病院1,佐藤 花子,面談,メモを追記,,,` +
        `面談相手: 旧選択肢（削除済み） / 紹介先診療科: 循環器内科 / 旧ラベル（削除済み）: 旧値,,0,0`,
    ].join('\r\n');
    const { finished } = await run(Buffer.from(csv, 'utf8'), 'update');
    expect(finished).toMatchObject({ status: 'completed', imported_row_count: 1, failed_row_count: 0 });
    const events = await communicationEvents(id);
    expect(events.map((e) => e.type)).toEqual(['CommunicationCreated', 'CommunicationUpdated']);
    const updated = events[1]!.data as CommunicationFields;
    expect(updated.memo).toBe('メモを追記');
    expect([...updated.label_values].sort((a, b) => a.label_id.localeCompare(b.label_id))).toEqual(
      [...labelValues].sort((a, b) => a.label_id.localeCompare(b.label_id)),
    );
  });

  it('still asks for a required label on a row that keeps a deleted label as stored', async () => {
    const id = randomUUID();
    const kept = labelValue(labels.deleted, { text_value: '旧値' });
    await storeVisit(id, [kept]);
    // 面談相手 is required for a visit; the row gives back only the deleted label's value.
    const csv = ['ID,ラベル', `${id},旧ラベル（削除済み）: 旧値`].join('\r\n');
    const { finished, chunks } = await run(Buffer.from(csv, 'utf8'), 'update');
    expect(finished).toMatchObject({ imported_row_count: 0, failed_row_count: 1 });
    expect(chunks.flatMap((c) => c.errors).map((e) => e.message)).toEqual(['2行目: 「面談相手」を入力してください']);
    expect((await communicationEvents(id)).map((e) => e.type)).toEqual(['CommunicationCreated']);
  });

  it('sets an own-department label from the department name of an export row', async () => {
    const created = await run(Buffer.from(createCsv, 'utf8'));
    const id = importedCommunicationId(created.importId, 1);
    const csv = [
      'ID,ラベル',
      `${id},面談相手: 院長 / 紹介先診療科: 循環器内科`,
      `${id},面談相手: 院長 / 紹介先診療科: 眼科`,
    ].join('\r\n');
    const { finished, chunks } = await run(Buffer.from(csv, 'utf8'), 'update');
    expect(finished).toMatchObject({ imported_row_count: 1, failed_row_count: 1 });
    expect(chunks.flatMap((c) => c.errors)[0]!.message).toBe('3行目: 「紹介先診療科」に自院診療科「眼科」はありません');
    const events = await communicationEvents(id);
    expect((events.at(-1)!.data as CommunicationFields).label_values).toContainEqual(
      expect.objectContaining({ label_id: labels.department, own_department_id: cardiology }),
    );
  });
});
