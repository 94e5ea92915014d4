import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { generateInstitutionMaster } from './generate-master.ts';
import { importInstitutionMaster } from './import-master.ts';
import { buildInstitutionCode, isValidInstitutionCode } from './institution-code.ts';
import { normalizeKeyword } from './normalize.ts';

let db: TestDatabase;
let dir: string;
beforeAll(async () => {
  db = await createTestDatabase();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-master-'));
});
afterAll(async () => {
  await db?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const count = async (where = 'true') =>
  Number((await db.pool.query(`SELECT count(*)::int AS n FROM ref.medical_institutions WHERE ${where}`)).rows[0].n);

describe('generateInstitutionMaster', () => {
  it('is deterministic for a seed and writes valid codes in the documented format', async () => {
    const a = path.join(dir, 'a.csv');
    const b = path.join(dir, 'b.csv');
    await generateInstitutionMaster(a, { count: 500, seed: 7 });
    await generateInstitutionMaster(b, { count: 500, seed: 7 });
    expect(fs.readFileSync(a).equals(fs.readFileSync(b))).toBe(true);
    const lines = fs.readFileSync(a, 'utf8').trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      '医療機関コード,名称,カナ,郵便番号,所在地,電話番号,開設者,管理者,施設種別,病床数,診療科,緯度,経度,状態',
    );
    expect(lines).toHaveLength(501);
    const codes = lines.slice(1).map((l) => l.split(',')[0]!);
    expect(codes.every(isValidInstitutionCode)).toBe(true);
    expect(new Set(codes).size).toBe(500);
    expect(lines.slice(1).every((l) => l.includes('静岡県'))).toBe(true);
  });
});

describe('importInstitutionMaster', () => {
  const file = () => path.join(dir, 'master.csv');

  it('loads a UTF-8 file with a header', async () => {
    await generateInstitutionMaster(file(), { count: 3000, seed: 1 });
    const run = await importInstitutionMaster(db, file(), { batchSize: 700 });
    expect(run).toMatchObject({
      status: 'completed',
      encoding: 'utf8',
      totalRows: 3000,
      insertedCount: 3000,
      failedCount: 0,
    });
    expect(await count()).toBe(3000);
    const row = (await db.pool.query(`SELECT * FROM ref.medical_institutions WHERE city = '静岡市葵区' LIMIT 1`))
      .rows[0];
    expect(row.prefecture).toBe('静岡県');
    expect(row.prefecture_code).toBe(22);
    const stored = (await db.pool.query(`SELECT * FROM ref.sync_runs WHERE id = $1`, [run.id])).rows[0];
    expect(stored).toMatchObject({ status: 'completed', inserted_count: 3000, total_rows: 3000 });
  });

  it('indexes every 2-gram of the search text: the 2-gram index finds exactly what a substring test finds', async () => {
    const grams = async (text: string) =>
      (await db.pool.query<{ g: string[] }>('SELECT ref.search_bigrams($1) AS g', [text])).rows[0]!.g;
    expect((await grams('病院病院')).sort()).toEqual(['病院', '院病'].sort());
    expect(await grams('病')).toEqual([]);
    expect(await grams('')).toEqual([]);
    // Keywords from a few stored rows: code digits, names, kana, addresses and the field separators.
    const { rows } = await db.pool.query<{ k: string; scanned: number }>(`
      WITH keys AS (
        SELECT DISTINCT substr(search_text, i, 2) AS k
          FROM (SELECT search_text FROM ref.medical_institutions ORDER BY code LIMIT 3) s,
               generate_series(1, length(search_text) - 1) AS i)
      SELECT k, (SELECT count(*)::int FROM ref.medical_institutions WHERE strpos(search_text, k) > 0) AS scanned
        FROM keys`);
    expect(rows.length).toBeGreaterThan(40);
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL enable_seqscan = off');
      const plan = await client.query(
        `EXPLAIN SELECT count(*) FROM ref.medical_institutions WHERE ref.search_bigrams(search_text) @> ARRAY['病院']`,
      );
      expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('medical_institutions_search_bigrams');
      for (const { k, scanned } of rows) {
        const { rows: indexed } = await client.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ref.medical_institutions WHERE ref.search_bigrams(search_text) @> ARRAY[$1]`,
          [k],
        );
        expect(scanned, k).toBeGreaterThan(0);
        expect(indexed[0]!.n, k).toBe(scanned);
      }
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  });

  it('a re-run of the same file changes nothing and duplicates nothing', async () => {
    const run = await importInstitutionMaster(db, file());
    expect(run).toMatchObject({ insertedCount: 0, updatedCount: 0, unchangedCount: 3000, closedCount: 0 });
    expect(await count()).toBe(3000);
  });

  it('updates changed rows and closes the ones a full file no longer lists', async () => {
    const lines = fs.readFileSync(file(), 'utf8').trimEnd().split('\r\n');
    const changed = lines[1]!.split(',');
    changed[1] = '医療法人社団テスト会 テスト記念病院';
    const dropped = lines.slice(-10).map((l) => l.split(',')[0]!);
    const kept = [lines[0]!, changed.join(','), ...lines.slice(2, -10)];
    fs.writeFileSync(file(), kept.join('\r\n') + '\r\n');
    const run = await importInstitutionMaster(db, file());
    expect(run).toMatchObject({ updatedCount: 1, insertedCount: 0, failedCount: 0 });
    const alreadyClosed = lines.slice(-10).filter((l) => l.endsWith(',廃止')).length;
    expect(run.closedCount).toBe(10 - alreadyClosed);
    const statuses = await db.pool.query(`SELECT running_status FROM ref.medical_institutions WHERE code = ANY($1)`, [
      dropped,
    ]);
    expect(statuses.rows.every((r) => r.running_status === 'closed')).toBe(true);
    const renamed = (
      await db.pool.query(`SELECT name, search_text FROM ref.medical_institutions WHERE code = $1`, [changed[0]])
    ).rows[0];
    expect(renamed.name).toBe('医療法人社団テスト会 テスト記念病院');
    expect(renamed.search_text).toContain(normalizeKeyword('テスト記念病院'));
    expect(await count()).toBe(3000);
  });

  it('reads a header-less Shift_JIS tab-separated file', async () => {
    const code = buildInstitutionCode({
      prefectureCode: 13,
      scoreTable: 1,
      districtNumber: 1,
      institutionNumber: 1001,
    });
    const rows = [
      [
        code,
        '東京テスト病院',
        'ﾄｳｷｮｳﾃｽﾄﾋﾞｮｳｲﾝ',
        '1000001',
        '東京都千代田区千代田１－１',
        '03-1234-5678',
        '個人',
        '鈴木 一郎',
        '一般病院',
        '120',
        '内科、外科、耳鼻咽喉科、漢方科',
        '35.68',
        '139.75',
        '開設',
      ],
    ];
    const sjis = path.join(dir, 'sjis.tsv');
    fs.writeFileSync(sjis, iconv.encode(rows.map((r) => r.join('\t')).join('\r\n') + '\r\n', 'cp932'));
    const run = await importInstitutionMaster(db, sjis, { fullSync: false });
    expect(run).toMatchObject({ status: 'completed', encoding: 'shift_jis', insertedCount: 1, failedCount: 0 });
    const row = (await db.pool.query(`SELECT * FROM ref.medical_institutions WHERE code = $1`, [code])).rows[0];
    expect(row).toMatchObject({
      name: '東京テスト病院',
      kana: 'トウキョウテストビョウイン',
      postal_code: '100-0001',
      city: '千代田区',
      bed_count: 120,
    });
    expect(row.department_names).toEqual(['内科', '外科', '耳鼻咽喉科', '漢方科']);
    expect(row.department_ids).toEqual([1, 10, 27]);
    expect(row.address).toBe('東京都千代田区千代田1-1');
  });

  it('reports bad rows by row number, skips them and keeps going', async () => {
    const good = buildInstitutionCode({
      prefectureCode: 13,
      scoreTable: 1,
      districtNumber: 2,
      institutionNumber: 1001,
    });
    const good2 = buildInstitutionCode({
      prefectureCode: 13,
      scoreTable: 1,
      districtNumber: 2,
      institutionNumber: 1002,
    });
    const badCheck = good2.slice(0, 9) + String((Number(good2[9]) + 1) % 10);
    const header =
      '医療機関コード,名称,カナ,郵便番号,所在地,電話番号,開設者,管理者,施設種別,病床数,診療科,緯度,経度,状態';
    const lines = [
      header,
      `${good},良い診療所,ヨイシンリョウジョ,100-0002,東京都千代田区丸の内1-1,03-1111-2222,個人,山田 花子,無床診療所,0,内科,35.68,139.76,開設`,
      `${badCheck},検証番号違い,,100-0002,東京都千代田区丸の内1-2,,,,無床診療所,,,,,開設`,
      `12345,短いコード,,,東京都千代田区,,,,無床診療所,,,,,開設`,
      `${good2},所在地なし,,,,,,,宇宙病院,abc,,,,謎`,
      `${good},重複,,,東京都千代田区丸の内1-1,,,,無床診療所,,,,,開設`,
    ];
    const bad = path.join(dir, 'bad.csv');
    fs.writeFileSync(bad, '\ufeff' + lines.join('\r\n') + '\r\n');
    const run = await importInstitutionMaster(db, bad, { fullSync: false });
    expect(run.status).toBe('completed');
    expect(run.insertedCount).toBe(1);
    expect(run.failedCount).toBe(4);
    expect(run.errors.map((e) => e.row)).toEqual([3, 4, 5, 6]);
    expect(run.errors[0]!.message).toContain('検証番号');
    expect(run.errors[2]!.message).toMatch(/所在地.*施設種別.*病床数.*状態/);
    expect(run.errors[3]!.message).toContain('重複');
    expect(await count(`code = '${badCheck}'`)).toBe(0);
  });

  it('a full sync never closes an institution whose row failed validation', async () => {
    const before = await count(`running_status = 'closed'`);
    const lines = fs.readFileSync(file(), 'utf8').trimEnd().split('\r\n');
    const at = lines.findIndex((l, i) => i > 0 && l.endsWith(',開設'));
    const broken = lines[at]!.split(',');
    broken[9] = 'many';
    lines[at] = broken.join(',');
    fs.writeFileSync(file(), lines.join('\r\n'));
    const run = await importInstitutionMaster(db, file());
    expect(run.failedCount).toBe(1);
    // Only the two institutions the earlier tests loaded outside this file close.
    expect(run.closedCount).toBe(2);
    expect(await count(`running_status = 'closed'`)).toBe(before + 2);
    expect(await count(`code = '${broken[0]}' AND running_status = 'closed'`)).toBe(0);
  });
});
