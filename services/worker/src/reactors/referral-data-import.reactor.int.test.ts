import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import {
  referralsOfChunk,
  type DpcFactsImported,
  type ReferralDataImportType,
  type ReferralsImported,
} from '@renkei/domain';
import {
  createPostgresEventStore,
  readStreamOrEmpty,
  streamId,
  type EventStore,
  type RecordedEvent,
} from '@renkei/event-store';
import { buildInstitutionCode, importInstitutionMaster, institutionIdFromCode } from '@renkei/institution-master';
import { migrateProjections, physicalTables } from '@renkei/projections';
import { referralsProjection } from '@renkei/read-models';
import { generateDemoReferralFiles } from '@renkei/referral-files';
import { ImportInterruptedError } from './import-queue.ts';
import { jstDay } from '../japan-time.ts';
import { runReferralDataImport } from './referral-data-import.reactor.ts';

let db: TestDatabase;
let store: EventStore;
let dir: string;
const tenant = randomUUID();
const surgery = randomUUID();
const code = (n: number) =>
  buildInstitutionCode({ prefectureCode: 22, scoreTable: 1, districtNumber: 2, institutionNumber: 1000 + n });
/** Institutions in Tokyo (prefecture 13), for namesakes in another prefecture than the tenant's. */
const tokyo = (n: number) =>
  buildInstitutionCode({ prefectureCode: 13, scoreTable: 1, districtNumber: 5, institutionNumber: 2000 + n });
/** Institutions sharing a name: told apart by the prefecture, then the municipality (docs in the reactor). */
const namesakes: [string, string, string][] = [
  [code(20), 'ひかりクリニック', '静岡県浜松市中央区元城町1'],
  [tokyo(1), 'ひかりクリニック', '東京都千代田区丸の内1'],
  [code(21), 'あおば医院', '静岡県浜松市中央区元城町2'],
  [code(22), 'あおば医院', '静岡県静岡市葵区追手町9'],
  [tokyo(2), 'さかえ医院', '東京都千代田区丸の内2'],
  [tokyo(3), 'さかえ医院', '東京都港区芝公園1'],
];
/** A code with a wrong check digit. */
const badCheck = (c: string) => c.slice(0, 9) + String((Number(c[9]) + 1) % 10);

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-referral-import-'));
  const master = path.join(dir, 'master.csv');
  const names = ['医療法人社団 駿河会 さくらクリニック', '静岡ヶ丘病院', 'みなと内科'];
  fs.writeFileSync(
    master,
    [
      ...[...names.map((name, i) => [code(i + 1), name]), [code(9), '駿河総合医療センター']].map(
        ([c, name], i) => `${c},${name},,,静岡県静岡市葵区追手町${i},,,,一般病院,100,内科,,,開設`,
      ),
      ...namesakes.map(([c, name, address]) => `${c},${name},,,${address},,,,診療所,0,内科,,,開設`),
    ].join('\n'),
  );
  await importInstitutionMaster(db, master);
  await sql`CREATE SCHEMA IF NOT EXISTS rm`.execute(db.kysely);
  await sql`CREATE TABLE rm.own_departments (tenant_id uuid, id uuid, name text)`.execute(db.kysely);
  await sql`INSERT INTO rm.own_departments VALUES (${tenant}, ${surgery}, '外科')`.execute(db.kysely);
  // The tenant's own hospital gives the prefecture that completes 7-digit codes.
  await sql`CREATE TABLE rm.tenant_settings (tenant_id uuid, medical_institution_id text,
    group_medical_institution_ids uuid[] NOT NULL DEFAULT '{}')`.execute(db.kysely);
  await sql`INSERT INTO rm.tenant_settings VALUES (${tenant}, ${institutionIdFromCode(code(9))})`.execute(db.kysely);
  // The reactor waits for the CRM read model to pass the upload: this checkpoint stands for one that has.
  await migrateProjections(db);
  await sql`
    INSERT INTO rm.projection_checkpoints (name, suffix, version, state, tables, position_primary, position_secondary)
    VALUES ('medical_institution_crm', 'v1', 1, 'live', '{}', 9223372036854775807, 0),
           ('referrals', 'v1', 1, 'live', '{}', 9223372036854775807, 0)`.execute(db.kysely);
  // The same for the referrals read model each rollup slice waits for (the tests project the events themselves).
});

afterAll(async () => {
  await store?.close();
  await db?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function upload(
  file: string,
  importType: ReferralDataImportType,
  mapping: Record<string, string | number> | null,
  run: (requested: RecordedEvent) => Promise<void> = (requested) => runReferralDataImport(db, store, requested),
  tenantId = tenant,
) {
  const importId = randomUUID();
  const stream = streamId('referral_data_import', importId);
  const metadata = {
    tenant_id: tenantId,
    account_id: null,
    correlation_id: importId,
    causation_id: null,
    schema_version: 1,
  };
  await store.append(
    stream,
    [
      {
        type: 'ReferralDataImportRequested',
        data: {
          import_id: importId,
          import_type: importType,
          filename: path.basename(file),
          stored_path: file,
          mapping,
        },
        metadata,
      },
    ],
    { expectedRevision: 'no_stream' },
  );
  const requested = (await readStreamOrEmpty(store, stream, tenantId))[0]!;
  await run(requested);
  return { importId, stream, requested, events: () => readStreamOrEmpty(store, stream, tenantId) };
}

const writeSjis = (name: string, lines: string[]) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, iconv.encode(lines.join('\r\n') + '\r\n', 'cp932'));
  return file;
};

const referralChunks = async (run: { events: () => Promise<RecordedEvent[]> }) =>
  (await run.events()).filter((e) => e.type === 'ReferralsImported').map((e) => e.data as ReferralsImported);

describe('lists without a header, and institution codes that cannot be verified', () => {
  it('imports a header-less Shift_JIS list through a mapping by column position, its first row included', async () => {
    const file = writeSjis('headerless.txt', [
      'みなと内科\tR6.6.1\t00077\t外科',
      '静岡ヶ丘病院\t令和6年6月2日\t78\t整形外科',
      'みなと内科\t2024/06/31\t79\t外科',
    ]);
    const run = await upload(file, 'referral', { 紹介元医療機関名: 1, 紹介日: 2, 患者ID: 3, 紹介先診療科: 4 });
    const [chunk] = await referralChunks(run);
    expect(
      referralsOfChunk(chunk!).map((r) => [
        r.row_number,
        r.referral_date,
        r.patient_key,
        r.medical_institution_id,
        r.to_department,
        r.own_department_id,
      ]),
    ).toEqual([
      [1, '2024-06-01', '77', institutionIdFromCode(code(3)), '外科', surgery],
      [2, '2024-06-02', '78', institutionIdFromCode(code(2)), '整形外科', null],
    ]);
    expect(chunk!.errors).toEqual([
      { row_number: 3, message: expect.stringMatching(/^3行目: 紹介日「2024\/06\/31」/) },
    ]);
    expect((await run.events()).at(-1)!.data).toMatchObject({
      status: 'completed',
      imported_row_count: 2,
      failed_row_count: 1,
    });
  });

  it('imports a UTF-16 list (Excel’s 「Unicode テキスト」), counting its rows as lines of text', async () => {
    const file = path.join(dir, 'unicode.txt');
    // 上 is the bytes 0A 4E in UTF-16LE: counted as bytes, each would be one more line.
    const text = ['紹介日\t患者ID\t紹介元医療機関名', 'R6.6.1\t501\tみなと内科', '2024/06/02\t502\t上野上田医院'];
    fs.writeFileSync(file, Buffer.from('\ufeff' + text.join('\r\n') + '\r\n', 'utf16le'));
    const run = await upload(file, 'referral', null);
    const [chunk] = await referralChunks(run);
    expect(
      referralsOfChunk(chunk!).map((r) => [
        r.referral_date,
        r.patient_key,
        r.medical_institution_id,
        r.institution_name,
      ]),
    ).toEqual([
      ['2024-06-01', '501', institutionIdFromCode(code(3)), 'みなと内科'],
      ['2024-06-02', '502', null, '上野上田医院'],
    ]);
    const events = await run.events();
    expect(events.find((e) => e.type === 'ReferralDataImportStarted')!.data).toMatchObject({ total_row_count: 2 });
    expect(events.at(-1)!.data).toMatchObject({ status: 'completed', imported_row_count: 2, failed_row_count: 0 });
  });

  it('fails a header-less list uploaded without a mapping, saying to map it by position', async () => {
    const run = await upload(writeSjis('headerless-unmapped.txt', ['みなと内科\tR6.6.1\t00077']), 'referral', null);
    expect((await run.events()).at(-1)!.data).toMatchObject({
      status: 'failed',
      error: { message: expect.stringContaining('「1列目」「2列目」') },
    });
  });

  it('keeps rows whose code fails its check: matched by name (namesakes by prefecture, then municipality), else unmatched, with a warning', async () => {
    const file = writeSjis('codes.csv', [
      '紹介日,患者ID,紹介元医療機関コード,紹介元医療機関名',
      `2024/06/01,1,${badCheck(code(3))},みなと内科`,
      `2024/06/01,2,${badCheck(code(3))},`,
      '2024/06/01,3,,ひかりクリニック',
      `2024/06/01,4,${badCheck(tokyo(1))},ひかりクリニック`,
      '2024/06/01,5,,あおば医院',
      '2024/06/01,6,,さかえ医院',
      '2024/06/01,7,12-34,どこにもない医院',
    ]);
    const run = await upload(file, 'referral', null);
    const [chunk] = await referralChunks(run);
    expect(
      referralsOfChunk(chunk!).map((r) => [
        r.patient_key,
        r.medical_institution_id,
        r.institution_code,
        r.institution_name,
      ]),
    ).toEqual([
      ['1', institutionIdFromCode(code(3)), badCheck(code(3)), 'みなと内科'],
      ['2', null, badCheck(code(3)), null],
      // Namesakes in Shizuoka and Tokyo: the tenant's prefecture (its own hospital is in Shizuoka).
      ['3', institutionIdFromCode(code(20)), null, 'ひかりクリニック'],
      // …unless the row's own (unverified) code names the other prefecture.
      ['4', institutionIdFromCode(tokyo(1)), badCheck(tokyo(1)), 'ひかりクリニック'],
      // Two in the tenant's prefecture: the one in its own hospital's municipality.
      ['5', institutionIdFromCode(code(22)), null, 'あおば医院'],
      // Two elsewhere, neither nearer: left unmatched (listed, matched by hand).
      ['6', null, null, 'さかえ医院'],
      ['7', null, '1234', 'どこにもない医院'],
    ]);
    expect(chunk!.errors).toEqual([
      {
        row_number: 2,
        message: expect.stringMatching(
          /^2行目: （警告）医療機関コード「.+」の検証番号が正しくありません。医療機関名「みなと内科」で照合しました$/,
        ),
      },
      {
        row_number: 3,
        message: expect.stringMatching(
          /^3行目: （警告）.*検証番号が正しくありません。医療機関を照合できなかったため、未照合として取り込みました/,
        ),
      },
      {
        row_number: 5,
        message: expect.stringMatching(/^5行目: （警告）.*医療機関名「ひかりクリニック」で照合しました$/),
      },
      {
        row_number: 8,
        message: expect.stringMatching(
          /^8行目: （警告）医療機関コード「12-34」は7桁または10桁の数字ではありません。.*未照合/,
        ),
      },
    ]);
    // Warnings are not failed rows: every row is imported.
    expect((await run.events()).at(-1)!.data).toMatchObject({
      status: 'completed',
      imported_row_count: 7,
      failed_row_count: 0,
    });
  });

  it('keeps rows dated after the day of the upload, each with a warning that the date may be mistyped', async () => {
    const referrals = writeSjis('future.csv', [
      '紹介日,患者ID,紹介元医療機関名',
      '2024/06/01,1,みなと内科',
      // R80 for R8: a year typed wrong.
      'R80.4.1,2,みなと内科',
    ]);
    const run = await upload(referrals, 'referral', null);
    const [chunk] = await referralChunks(run);
    expect(referralsOfChunk(chunk!).map((r) => [r.patient_key, r.referral_date])).toEqual([
      ['1', '2024-06-01'],
      ['2', '2098-04-01'],
    ]);
    const day = jstDay(run.requested.created_at).replaceAll('-', '/');
    expect(chunk!.errors).toEqual([
      {
        row_number: 3,
        message: `3行目: （警告）紹介日「2098/04/01」がアップロードした日（${day}）より後です。行は取り込みましたが、その月になるまで実績に表れません。日付に誤りがないか確認してください`,
      },
    ]);
    expect((await run.events()).at(-1)!.data).toMatchObject({
      status: 'completed',
      imported_row_count: 2,
      failed_row_count: 0,
    });

    const reverse = writeSjis('future-reverse.csv', [
      '逆紹介日,患者ID,逆紹介先医療機関名',
      '2099/12/31,1,みなと内科',
      '2024/06/02,1,みなと内科',
    ]);
    const reverseRun = await upload(reverse, 'reverse_referral', null);
    const reverseChunk = (await reverseRun.events()).find((e) => e.type === 'ReverseReferralsImported')!.data as {
      errors: { row_number: number | null; message: string }[];
    };
    expect(reverseChunk.errors.map((e) => e.row_number)).toEqual([2]);
    expect(reverseChunk.errors[0]!.message).toMatch(/^2行目: （警告）逆紹介日「2099\/12\/31」がアップロードした日/);
  });

  it('reads 7-digit codes of a tenant without an own hospital by the one candidate the master holds, else by name', async () => {
    const noHospital = randomUUID();
    const file = writeSjis('seven.csv', [
      '逆紹介日,患者ID,逆紹介先医療機関コード,逆紹介先医療機関名',
      `2024/06/01,1,${code(1).slice(3)},`,
      `2024/06/01,2,${code(2).slice(3)},静岡ヶ丘病院`,
      '2024/06/01,3,0299990,みなと内科',
      '2024/06/01,4,0299990,',
    ]);
    const run = await upload(file, 'reverse_referral', null, undefined, noHospital);
    const chunk = (await run.events()).find((e) => e.type === 'ReverseReferralsImported')!.data as {
      reverse_referrals: {
        patient_key: string;
        medical_institution_id: string | null;
        institution_code: string | null;
      }[];
      errors: { row_number: number | null; message: string }[];
    };
    expect(chunk.reverse_referrals.map((r) => [r.patient_key, r.medical_institution_id, r.institution_code])).toEqual([
      ['1', institutionIdFromCode(code(1)), code(1)],
      ['2', institutionIdFromCode(code(2)), code(2)],
      ['3', institutionIdFromCode(code(3)), '0299990'],
      ['4', null, '0299990'],
    ]);
    expect(chunk.errors.map((e) => e.row_number)).toEqual([4, 5]);
    expect(chunk.errors[0]!.message).toMatch(
      /都道府県が分からないため検証できません。医療機関名「みなと内科」で照合しました/,
    );
  });

  it('reads a wide FF1 (FL00001) without a 施設コード column as the own hospital’s, or refuses it when the tenant has none', async () => {
    const file = writeSjis('wide-ff1.txt', [
      'データ識別番号\t入院年月日\t退院年月日\t診療科コード\t他院よりの紹介の有無\t主傷病ICD10コード\t主傷病名',
      '0000000123\t20240601\t20240610\t010\t1\tI509\t心不全',
      '0000000124\t20240602\t20240605\t130\t0\t\t',
    ]);
    const run = await upload(file, 'ff1_file', null);
    const admissions = (await run.events())
      .filter((e) => e.type === 'HospitalAdmissionsImported')
      .flatMap((e) => (e.data as { admissions: Record<string, unknown>[] }).admissions);
    const facility = code(9).slice(0, 2) + code(9).slice(3);
    expect(
      admissions.map((a) => [
        a.identity,
        a.admission_date,
        a.discharge_date,
        a.department_code,
        a.referral_in,
        a.icd10_code,
      ]),
    ).toEqual([
      [`${facility}|123|20240601|0`, '2024-06-01', '2024-06-10', '010', true, 'I509'],
      [`${facility}|124|20240602|0`, '2024-06-02', '2024-06-05', '130', false, null],
    ]);
    expect((await run.events()).at(-1)!.data).toMatchObject({ status: 'completed', failed_row_count: 0 });

    const refused = await upload(file, 'ff1_file', null, undefined, randomUUID());
    expect((await refused.events()).at(-1)!.data).toMatchObject({
      status: 'failed',
      error: { message: expect.stringContaining('施設コードがありません') },
    });
  });
});

describe('referral data import', () => {
  it('reads a Shift_JIS list in the hospital’s own columns, matches institutions by code and by name, keeps the unmatched and reports bad rows', async () => {
    const file = path.join(dir, 'list.csv');
    const text = [
      '紹介年月日,カルテ番号,紹介元コード,紹介元病院名,受診科',
      `R6.4.1,00123,${code(3)},みなと内科,外科`,
      '2024/04/02,456,,駿河会　さくらクリニック,内科',
      '2024/04/03,789,,静岡ケ丘病院,外科',
      '2024/04/04,790,,どこにもない医院,外科',
      '2024/13/40,791,,みなと内科,外科',
    ].join('\r\n');
    fs.writeFileSync(file, iconv.encode(text, 'cp932'));
    const run = await upload(file, 'referral', {
      紹介日: '紹介年月日',
      患者ID: 'カルテ番号',
      紹介元医療機関コード: '紹介元コード',
      紹介元医療機関名: '紹介元病院名',
      紹介先診療科: '受診科',
    });
    const events = await run.events();
    expect(events.map((e) => e.type)).toEqual([
      'ReferralDataImportRequested',
      'ReferralDataImportStarted',
      'ReferralsImported',
      'ReferralDataImportRollupsRequested',
      'ReferralDataImportRollupsRequested',
      'ReferralDataImportFinished',
    ]);
    // Five data rows: the header row is not counted.
    expect(events[1]!.data).toMatchObject({ total_row_count: 5 });
    expect(events.slice(3, 5).map((e) => e.data)).toEqual([
      expect.objectContaining({ phase: 'link', bucket: 0, buckets: 1 }),
      expect.objectContaining({ phase: 'rollup', bucket: 0, buckets: 1 }),
    ]);
    const chunk = events[2]!.data as ReferralsImported;
    expect(chunk.rollups_deferred).toBe(true);
    // The worker writes a chunk's referrals as columns (ReferralColumns), not as one object per row.
    expect(chunk.referrals).toBeUndefined();
    expect(referralsOfChunk(chunk).map((r) => [r.patient_key, r.medical_institution_id, r.own_department_id])).toEqual([
      ['123', institutionIdFromCode(code(3)), surgery],
      ['456', institutionIdFromCode(code(1)), null],
      ['789', institutionIdFromCode(code(2)), surgery],
      ['790', null, surgery],
    ]);
    expect(chunk.errors).toEqual([{ row_number: 6, message: expect.stringMatching(/^6行目: 紹介日「2024\/13\/40」/) }]);
    expect(events[5]!.data).toMatchObject({ status: 'completed', imported_row_count: 4, failed_row_count: 1 });

    // A second run (a worker restarted after the end) appends nothing.
    await runReferralDataImport(db, store, run.requested);
    expect((await run.events()).length).toBe(6);
  });

  it('resumes a run stopped between chunks without a duplicate, and a re-upload of the same rows adds nothing', async () => {
    const file = path.join(dir, 'big.csv');
    const rows = Array.from(
      { length: 7730 },
      (_, i) => `2024/05/${String((i % 28) + 1).padStart(2, '0')},P${i},,みなと内科`,
    );
    fs.writeFileSync(file, ['紹介日,患者ID,紹介元医療機関コード,紹介元医療機関名', ...rows].join('\n'));
    // The worker stops after two chunks (as on SIGTERM; a kill -9 leaves the same recorded chunks).
    const stop = new AbortController();
    let turns = 0;
    const control = {
      signal: stop.signal,
      turn: async <T>(work: () => Promise<T>) => {
        if (++turns > 2) stop.abort();
        if (stop.signal.aborted) throw new ImportInterruptedError();
        return work();
      },
    };
    const run = await upload(file, 'referral', null, (requested) =>
      expect(runReferralDataImport(db, store, requested, control)).rejects.toThrow(ImportInterruptedError),
    );
    expect((await run.events()).filter((e) => e.type === 'ReferralsImported')).toHaveLength(2);
    await runReferralDataImport(db, store, run.requested);
    const events = await run.events();
    const chunks = events.filter((e) => e.type === 'ReferralsImported').map((e) => e.data as ReferralsImported);
    expect(chunks.map((c) => c.chunk)).toEqual([0, 1, 2, 3]);
    expect(chunks.flatMap((c) => referralsOfChunk(c)).length).toBe(7730);
    expect(new Set(chunks.flatMap((c) => referralsOfChunk(c).map((r) => r.identity))).size).toBe(7730);
    expect(events.at(-1)!.data).toMatchObject({ status: 'completed', imported_row_count: 7730, failed_row_count: 0 });

    // The same file again: the projection counts every record as already present.
    const again = await upload(file, 'referral', null);
    const t = physicalTables(referralsProjection, 'resume');
    await db.kysely.transaction().execute((trx) => referralsProjection.setup(trx, t));
    await db.kysely
      .transaction()
      .execute(async (trx) => referralsProjection.handle(trx, [...events, ...(await again.events())], t));
    const { rows: counts } = await sql<{ n: number; u: number }>`
      SELECT new_record_count AS n, unchanged_record_count AS u FROM ${sql.table(t.referral_data_imports)} ORDER BY created_at`.execute(
      db.kysely,
    );
    expect(counts).toEqual([
      { n: 7730, u: 0 },
      { n: 0, u: 7730 },
    ]);
  });

  it('resumes a run stopped while its rollup slices wait, appending nothing twice; the rollups then hold every row', async () => {
    const file = path.join(dir, 'slices.csv');
    const rows = Array.from(
      { length: 2500 },
      (_, i) => `2024/0${(i % 3) + 4}/${String((i % 28) + 1).padStart(2, '0')},S${i},${code((i % 3) + 1)},`,
    );
    fs.writeFileSync(file, ['紹介日,患者ID,紹介元医療機関コード,紹介元医療機関名', ...rows].join('\n'));
    // The worker stops after its last chunk: the first slice is appended, its wait sees the stop (as a kill -9 there would leave it).
    const stop = new AbortController();
    let turns = 0;
    const control = {
      signal: stop.signal,
      turn: async <T>(work: () => Promise<T>) => {
        const result = await work();
        if (++turns === 2) stop.abort();
        return result;
      },
    };
    const run = await upload(file, 'referral', null, (requested) =>
      expect(runReferralDataImport(db, store, requested, control)).rejects.toThrow(),
    );
    expect((await run.events()).map((e) => e.type).slice(2)).toEqual([
      'ReferralsImported',
      'ReferralsImported',
      'ReferralDataImportRollupsRequested',
    ]);
    await runReferralDataImport(db, store, run.requested);
    const events = await run.events();
    expect(events.map((e) => e.type).slice(2)).toEqual([
      'ReferralsImported',
      'ReferralsImported',
      'ReferralDataImportRollupsRequested',
      'ReferralDataImportRollupsRequested',
      'ReferralDataImportFinished',
    ]);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    // Projected in batches of any size, the rollups count each row once and nothing stays pending.
    for (const size of [1, 2, events.length]) {
      const t = physicalTables(referralsProjection, `slices${size}`);
      await db.kysely.transaction().execute((trx) => referralsProjection.setup(trx, t));
      for (let i = 0; i < events.length; i += size)
        await db.kysely.transaction().execute((trx) => referralsProjection.handle(trx, events.slice(i, i + size), t));
      const { rows: totals } = await sql<{ referrals: number; pending: number; status: string }>`
        SELECT (SELECT sum(referral_count) FROM ${sql.table(t.referral_monthly_rollups)})::int AS referrals,
               (SELECT count(*) FROM ${sql.table(t.referral_pending_months)})::int
                 + (SELECT count(*) FROM ${sql.table(t.referral_pending_patients)})::int AS pending,
               (SELECT status FROM ${sql.table(t.referral_data_imports)}) AS status`.execute(db.kysely);
      expect(totals[0]).toEqual({ referrals: 2500, pending: 0, status: 'completed' });
    }
  });

  it('resumes a list import whose chunks a worker before v8 recorded (500 rows each) at their size, without a duplicate', async () => {
    const file = path.join(dir, 'legacy.csv');
    const rows = Array.from(
      { length: 1200 },
      (_, i) => `2024/05/${String((i % 28) + 1).padStart(2, '0')},L${i},,みなと内科`,
    );
    fs.writeFileSync(file, ['紹介日,患者ID,紹介元医療機関コード,紹介元医療機関名', ...rows].join('\n'));
    const stop = new AbortController();
    const control = {
      signal: stop.signal,
      // Stopped before its first chunk: what the earlier worker recorded is appended below.
      turn: <T>(_work: () => Promise<T>): Promise<T> => {
        stop.abort();
        return Promise.reject(new ImportInterruptedError());
      },
    };
    const run = await upload(file, 'referral', null, (requested) =>
      expect(runReferralDataImport(db, store, requested, control)).rejects.toThrow(ImportInterruptedError),
    );
    // What the earlier worker recorded: the first 500 rows as chunk 0, rollups not deferred.
    const started = await run.events();
    const referrals = await (async () => {
      const full = await upload(file, 'referral', null);
      return referralsOfChunk(
        (await full.events()).find((e) => e.type === 'ReferralsImported')!.data as ReferralsImported,
      );
    })();
    await store.append(
      run.stream,
      [
        {
          type: 'ReferralsImported',
          data: {
            import_id: run.importId,
            chunk: 0,
            imported_row_count: 500,
            failed_row_count: 0,
            errors: [],
            referrals: referrals.slice(0, 500),
          },
          metadata: started[0]!.metadata,
        },
      ],
      { expectedRevision: 'any' },
    );
    await runReferralDataImport(db, store, run.requested);
    const chunks = (await run.events())
      .filter((e) => e.type === 'ReferralsImported')
      .map((e) => e.data as ReferralsImported);
    expect(chunks.map((c) => referralsOfChunk(c).length)).toEqual([500, 500, 200]);
    expect(new Set(chunks.flatMap((c) => referralsOfChunk(c).map((r) => r.identity))).size).toBe(1200);
  });

  it('does not import without the tenant scope when reading it fails (only a missing settings model means no scope)', async () => {
    const file = path.join(dir, 'scope.csv');
    fs.writeFileSync(file, 'a\tb\tc\n1\t2\t3\n');
    await sql`ALTER TABLE rm.tenant_settings RENAME COLUMN group_medical_institution_ids TO renamed`.execute(db.kysely);
    try {
      await expect(upload(file, 'd_file', null)).rejects.toMatchObject({ code: '42703' });
    } finally {
      await sql`ALTER TABLE rm.tenant_settings RENAME COLUMN renamed TO group_medical_institution_ids`.execute(
        db.kysely,
      );
    }
  });

  it('fails a file of the wrong kind at once, saying what was expected', async () => {
    const file = path.join(dir, 'wrong.csv');
    fs.writeFileSync(file, 'a\tb\tc\n1\t2\t3\n');
    const run = await upload(file, 'ff1_file', null);
    const finished = (await run.events()).at(-1)!;
    expect(finished.type).toBe('ReferralDataImportFinished');
    expect(finished.data).toMatchObject({ status: 'failed', error: { message: expect.stringMatching(/様式1/) } });
  });

  it('imports the demo files end to end: referrals joined to the FF1 stays in the rollups', async () => {
    const demo = await generateDemoReferralFiles(path.join(dir, 'demo'), {
      seed: 7,
      institutions: [1, 2, 3].map((n) => ({ code: code(n), name: `テスト病院${n}` })),
      ownInstitutionCode: code(9),
      fiscalYears: [2024],
      referralsPerYear: 300,
      otherAdmissionsPerYear: 50,
    });
    const fileOf = (kind: string) => demo.files.find((f) => f.kind === kind)!.path;
    const runs = [
      await upload(fileOf('ff1_file'), 'ff1_file', null),
      await upload(fileOf('referral'), 'referral', demo.referralMapping),
      await upload(fileOf('reverse_referral'), 'reverse_referral', demo.reverseReferralMapping),
    ];
    const all: RecordedEvent[] = [];
    for (const run of runs) all.push(...(await run.events()));
    for (const run of runs)
      expect((await run.events()).at(-1)!.data).toMatchObject({
        status: 'completed',
        failed_row_count: 0,
        error: null,
      });
    const t = physicalTables(referralsProjection, 'e2e');
    await db.kysely.transaction().execute((trx) => referralsProjection.setup(trx, t));
    await db.kysely.transaction().execute((trx) => referralsProjection.handle(trx, all, t));
    const { rows } = await sql<{ referrals: number; admitted: number; operated: number; reverse: number }>`
      SELECT sum(referral_count)::int AS referrals, sum(admitted_count)::int AS admitted,
             sum(operated_count)::int AS operated, sum(reverse_referral_count)::int AS reverse
        FROM ${sql.table(t.referral_monthly_rollups)}`.execute(db.kysely);
    const totals = rows[0]!;
    expect(totals.referrals).toBeGreaterThan(250);
    expect(totals.admitted).toBeGreaterThan(totals.referrals / 5);
    expect(totals.operated).toBeGreaterThan(0);
    expect(totals.reverse).toBeGreaterThan(0);
  });

  describe('D and EF files', () => {
    // The tenant's own hospital is code(9): its 施設コード is the prefecture and the last 7 digits.
    const facility = () => code(9).slice(0, 2) + code(9).slice(3);
    const pad = (cells: string[], n: number) => [...cells, ...Array<string>(n - cells.length).fill('')];
    const efRow = (fac: string, id: string, adm: string, dataClass: string, interp = '', date = adm) => {
      const c = pad(
        [
          fac,
          id,
          '20240430',
          adm,
          dataClass,
          '1',
          '001',
          '',
          interp ? '150254110' : '',
          interp,
          interp ? '腹腔鏡下胆嚢摘出術' : '',
        ],
        31,
      );
      c[23] = date;
      c[25] = '100';
      return c.join('\t');
    };
    const write = (name: string, lines: string[]) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, iconv.encode(lines.join('\r\n') + '\r\n', 'cp932'));
      return file;
    };
    /** An EF of `stays` stays, each one 入院料 row, an operation and nine more 入院料 rows. */
    const efFile = (name: string, stays: number) =>
      write(
        name,
        Array.from({ length: stays }, (_, i) => {
          const id = String(i + 1).padStart(10, '0');
          const adm = `202404${String((i % 28) + 1).padStart(2, '0')}`;
          return [
            efRow(facility(), id, adm, '90'),
            efRow(facility(), id, adm, '50', 'K672-2', adm),
            ...Array.from({ length: 9 }, () => efRow(facility(), id, adm, '90')),
          ];
        }).flat(),
      );
    const chunksOf = async (run: { events: () => Promise<RecordedEvent[]> }) =>
      (await run.events()).filter((e) => e.type === 'DpcFactsImported').map((e) => e.data as DpcFactsImported);

    it('imports an inpatient EF in chunks, counting every row, and resumes a stopped run without a duplicate', async () => {
      const file = efFile('efn.txt', 700);
      const stop = new AbortController();
      let turns = 0;
      const control = {
        signal: stop.signal,
        turn: async <T>(work: () => Promise<T>) => {
          if (++turns > 1) stop.abort();
          if (stop.signal.aborted) throw new ImportInterruptedError();
          return work();
        },
      };
      const run = await upload(file, 'hospital_admission_ef_file', null, (requested) =>
        expect(runReferralDataImport(db, store, requested, control)).rejects.toThrow(ImportInterruptedError),
      );
      expect(await chunksOf(run)).toHaveLength(1);
      await runReferralDataImport(db, store, run.requested);
      const chunks = await chunksOf(run);
      expect(chunks.map((c) => c.chunk)).toEqual([0, 1, 2]);
      expect(chunks.reduce((n, c) => n + c.imported_row_count, 0)).toBe(7700);
      expect(chunks.flatMap((c) => c.stays)).toHaveLength(700);
      const operations = chunks.flatMap((c) => c.procedures);
      expect(operations).toHaveLength(700);
      expect(new Set(operations.map((p) => p.identity)).size).toBe(700);
      expect(operations[0]).toMatchObject({
        facility_code: facility(),
        patient_key: '1',
        admission_date: '2024-04-01',
        kind: 'operation',
        code: 'K672-2',
        date: '2024-04-01',
      });
      expect((await run.events()).at(-1)!.data).toMatchObject({
        status: 'completed',
        imported_row_count: 7700,
        failed_row_count: 0,
      });
    });

    it("refuses another hospital's rows by number and keeps the rest", async () => {
      const file = write('mixed-ef.txt', [
        efRow(facility(), '1', '20240401', '90'),
        efRow('139999999', '2', '20240401', '90'),
        efRow('139999999', '2', '20240401', '50', 'K672-2'),
        efRow(facility(), '1', '20240401', '50', 'K672-2'),
      ]);
      const run = await upload(file, 'hospital_admission_ef_file', null);
      const [chunk] = await chunksOf(run);
      expect(chunk!.errors.map((e) => e.row_number)).toEqual([2, 3]);
      expect(chunk!.errors[0]!.message).toMatch(/^2行目: 施設コード「139999999」は自院・グループ病院の施設コード/);
      expect(chunk!.procedures).toHaveLength(1);
      expect((await run.events()).at(-1)!.data).toMatchObject({
        status: 'completed',
        imported_row_count: 2,
        failed_row_count: 2,
      });
    });

    it('fails a file of the wrong kind at once, saying what was expected', async () => {
      const ef = efFile('ef-as-d.txt', 3);
      for (const [importType, expected] of [
        ['d_file', /^Dファイルとして読めません。タブ区切り30列.*31列: EF統合ファイルの形式です/],
        ['ff1_file', /^様式1（FF1）ファイルとして読めません/],
      ] as const) {
        const run = await upload(ef, importType, null);
        const events = await run.events();
        expect(events.some((e) => e.type === 'DpcFactsImported' || e.type === 'HospitalAdmissionsImported')).toBe(
          false,
        );
        expect(events.at(-1)!.data).toMatchObject({
          status: 'failed',
          error: { message: expect.stringMatching(expected) },
        });
      }
    });

    it('imports the demo D and EF before their FF1: the stays get their DPC codes, and nothing doubles on re-upload', async () => {
      const demo = await generateDemoReferralFiles(path.join(dir, 'demo-dpc'), {
        seed: 11,
        institutions: [1, 2, 3].map((n) => ({ code: code(n), name: `テスト病院${n}` })),
        ownInstitutionCode: code(9),
        fiscalYears: [2024],
        referralsPerYear: 300,
        otherAdmissionsPerYear: 50,
      });
      const fileOf = (kind: string) => demo.files.find((f) => f.kind === kind)!.path;
      const runs = [
        await upload(fileOf('d_file'), 'd_file', null),
        await upload(fileOf('hospital_admission_ef_file'), 'hospital_admission_ef_file', null),
        await upload(fileOf('hospital_admission_ef_file'), 'hospital_admission_ef_file', null),
        await upload(fileOf('ff1_file'), 'ff1_file', null),
        await upload(fileOf('referral'), 'referral', demo.referralMapping),
      ];
      const all: RecordedEvent[] = [];
      for (const run of runs) {
        const events = await run.events();
        expect(events.at(-1)!.data).toMatchObject({ status: 'completed', failed_row_count: 0, error: null });
        all.push(...events);
      }
      const t = physicalTables(referralsProjection, 'dpc');
      await db.kysely.transaction().execute((trx) => referralsProjection.setup(trx, t));
      await db.kysely.transaction().execute((trx) => referralsProjection.handle(trx, all, t));
      const { rows } = await sql<{ stays: number; coded: number; operated: number }>`
        SELECT count(*)::int AS stays, count(dpc_code)::int AS coded, count(kcode)::int AS operated
          FROM ${sql.table(t.hospital_admissions)}`.execute(db.kysely);
      expect(rows[0]!.stays).toBeGreaterThan(50);
      expect(rows[0]!.coded).toBe(rows[0]!.stays);
      expect(rows[0]!.operated).toBeGreaterThan(0);
      const { rows: imports } = await sql<{ import_type: string; n: number; u: number }>`
        SELECT import_type, new_record_count AS n, unchanged_record_count AS u
          FROM ${sql.table(t.referral_data_imports)} WHERE import_type = 'hospital_admission_ef_file' ORDER BY created_at`.execute(
        db.kysely,
      );
      expect(imports[0]!.n).toBeGreaterThan(0);
      expect(imports[1]).toMatchObject({ n: 0, u: imports[0]!.n + imports[0]!.u });
    });
  });
});
