import { describe, expect, it } from 'vitest';
import { buildInstitutionCode } from '@renkei/institution-master';
import { FileKindError } from '../file-kind-error.ts';
import { collect, writeFixture } from '../test-files.ts';
import { suggestMapping } from './list-columns.ts';
import { readListHeader } from './list-file.ts';
import { parseReferralList, parseReverseReferralList } from './referral-lists.ts';

const clinic = buildInstitutionCode({ prefectureCode: 22, scoreTable: 1, districtNumber: 3, institutionNumber: 1234 });
const own = ['紹介年月日', 'カルテ番号', '紹介元コード', '紹介元病院名', '紹介医', '受診科', '初再診区分'];
const ownMapping = suggestMapping(own);

describe('suggestMapping', () => {
  it('maps a hospital’s own names by synonyms, each column once', () => {
    expect(ownMapping).toEqual({
      紹介日: '紹介年月日',
      患者ID: 'カルテ番号',
      紹介元医療機関コード: '紹介元コード',
      紹介元医療機関名: '紹介元病院名',
      紹介元医師名: '紹介医',
      紹介先診療科: '受診科',
      初診: '初再診区分',
    });
    expect(suggestMapping(['紹介日付', '患者番号', '医療機関名', '診療科'])).toEqual({
      紹介日: '紹介日付',
      患者ID: '患者番号',
      紹介元医療機関名: '医療機関名',
      紹介先診療科: '診療科',
    });
    expect(suggestMapping(['逆紹介年月日', 'ＩＤ', '紹介先医療機関名', '診療科（当院）'], 'reverse_referral')).toEqual({
      逆紹介日: '逆紹介年月日',
      患者ID: 'ＩＤ',
      逆紹介先医療機関名: '紹介先医療機関名',
      自院診療科: '診療科（当院）',
    });
  });
});

describe('parseReferralList', () => {
  it('reads a Shift_JIS list with its own header through a mapping, 和暦 and 西暦 dates alike', async () => {
    const file = writeFixture(
      [
        own,
        ['R6.4.1', '00012345', clinic, 'しずおか内科', '佐藤 一郎', '循環器内科', '初診'],
        ['令和元年5月7日', '778', '', 'はままつ整形外科', '', '整形外科', '再診'],
        ['2024/04/03', '990', clinic.slice(3), '', '', '', ''],
        ['H31.4.30', '991', clinic, 'しずおか内科', '', '眼科', '1'],
      ],
      { delimiter: ',' },
    );
    const { records, rejected } = await collect(parseReferralList(file, { mapping: ownMapping, prefectureCode: 22 }));
    expect(rejected).toEqual([]);
    expect(
      records.map((r) => [r.referralDate, r.patientKey, r.institutionCode, r.institutionName, r.firstVisit]),
    ).toEqual([
      ['2024-04-01', '12345', clinic, 'しずおか内科', true],
      ['2019-05-07', '778', null, 'はままつ整形外科', false],
      ['2024-04-03', '990', clinic, null, null],
      ['2019-04-30', '991', clinic, 'しずおか内科', true],
    ]);
    expect(records[0]).toMatchObject({ patientId: '00012345', fromDoctor: '佐藤 一郎', toDepartment: '循環器内科' });
  });

  it('reads a headerless UTF-8 tab file mapped by 1-based position (header detected as absent)', async () => {
    const file = writeFixture([['20240401', 'P-1', clinic]], { encoding: 'utf8', bom: true, eol: '\n' });
    const { records } = await collect(
      parseReferralList(file, { mapping: { 紹介日: 1, 患者ID: 2, 紹介元医療機関コード: 3 } }),
    );
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ referralDate: '2024-04-01', patientId: 'P-1', institutionCode: clinic });
  });

  it('reads a headerless Shift_JIS list by position, its first row included, columns in any order', async () => {
    const file = writeFixture([
      ['しずおか内科', 'R6.4.1', '00012', '循環器内科'],
      ['はままつ整形外科', '令和6年4月2日', '13', '整形外科'],
    ]);
    const mapping = { 紹介元医療機関名: 1, 紹介日: 2, 患者ID: 3, 紹介先診療科: 4 };
    const { records, rejected } = await collect(parseReferralList(file, { mapping }));
    expect(rejected).toEqual([]);
    expect(records.map((r) => [r.referralDate, r.patientKey, r.institutionName, r.toDepartment])).toEqual([
      ['2024-04-01', '12', 'しずおか内科', '循環器内科'],
      ['2024-04-02', '13', 'はままつ整形外科', '整形外科'],
    ]);
    // A header name cannot address a file without a header; a position of 0 is no column.
    await expect(collect(parseReferralList(file, { mapping: { ...mapping, 紹介日: '紹介日' } }))).rejects.toThrow(
      /見出し行がないため、列名「紹介日」で対応付けできません/,
    );
    await expect(collect(parseReferralList(file, { mapping: { ...mapping, 紹介日: 0 } }))).rejects.toThrow(
      '「紹介日」の列番号「0」は1以上の整数で指定してください',
    );
  });

  it('keeps a row whose 医療機関コード cannot be verified, with the code as written and why', async () => {
    const badCheck = clinic.slice(0, 9) + String((Number(clinic[9]) + 1) % 10);
    const file = writeFixture(
      [
        own,
        ['R6.4.1', '1', badCheck, 'しずおか内科', '', '', ''],
        ['R6.4.1', '2', badCheck, '', '', '', ''],
        ['R6.4.1', '3', clinic.slice(3), 'しずおか内科', '', '', ''],
        ['R6.4.1', '4', '12-34', '', '', '', ''],
      ],
      { delimiter: ',' },
    );
    // No prefecture: the tenant has no own hospital set.
    const { records, rejected } = await collect(parseReferralList(file, { mapping: ownMapping }));
    expect(rejected).toEqual([]);
    expect(
      records.map((r) => [r.patientId, r.institutionCode, r.institutionName, r.institutionCodeProblem?.written]),
    ).toEqual([
      ['1', null, 'しずおか内科', badCheck],
      ['2', null, null, badCheck],
      ['3', null, 'しずおか内科', clinic.slice(3)],
      ['4', null, null, '1234'],
    ]);
    expect(records[0]!.institutionCodeProblem!.reason).toContain('検証番号が正しくありません');
    expect(records[0]!.institutionCodeProblem!.candidates).toEqual([]);
    // A 7-digit code without a prefecture: the 10-digit codes it may stand for, the clinic's among them.
    const seven = records[2]!.institutionCodeProblem!;
    expect(seven.reason).toContain('都道府県が分からない');
    expect(seven.candidates).toContain(clinic);
    expect(seven.candidates.every((c) => c.endsWith(clinic.slice(3)) && c.length === 10)).toBe(true);
    // Identity: the name when there is one, else the code as written (never the unverified code and a name mixed).
    const named = writeFixture([own, ['R6.4.1', '1', '', 'しずおか内科', '', '', '']], { delimiter: ',' });
    expect((await collect(parseReferralList(named, { mapping: ownMapping }))).records[0]!.identity).toBe(
      records[0]!.identity,
    );
  });

  it('rejects bad rows with their line number and a Japanese reason, keeping the others', async () => {
    const file = writeFixture(
      [
        own,
        ['R6.4.1', '1', clinic, 'A', '', '', ''],
        ['R6.4.31', '2', clinic, 'A', '', '', ''],
        ['R6.4.2', '', clinic, 'A', '', '', ''],
        '',
        ['R6.4.2', '3', '', '', '', '', ''],
        ['R6.4.2', '5', clinic, 'A', '', '', 'たぶん'],
        ['R6.4.3', '6', clinic, 'A', '', '', ''],
      ],
      { delimiter: ',' },
    );
    const { records, rejected } = await collect(parseReferralList(file, { mapping: ownMapping, prefectureCode: 22 }));
    expect(records.map((r) => r.patientId)).toEqual(['1', '6']);
    expect(rejected).toEqual([
      { rowNumber: 3, reason: '紹介日「R6.4.31」を日付として読めません' },
      { rowNumber: 4, reason: '患者IDがありません' },
      { rowNumber: 6, reason: '紹介元医療機関コードまたは紹介元医療機関名が必要です' },
      { rowNumber: 7, reason: '初診「たぶん」は1（初診）または0（再診）で指定してください' },
    ]);
  });

  it('fails at once when a mapped column is missing or the file is of another kind', async () => {
    const file = writeFixture([own, ['R6.4.1', '1', clinic, 'A', '', '', '']], { delimiter: ',' });
    await expect(collect(parseReferralList(file, { mapping: { ...ownMapping, 紹介日: '紹介日' } }))).rejects.toThrow(
      '紹介データの見出しに「紹介日」の列がありません',
    );
    const ef = writeFixture(
      Array.from({ length: 25 }, () => [
        '221001234',
        '0000012345',
        '00000000',
        '20240401',
        '50',
        ...Array<string>(26).fill(''),
      ]),
    );
    const seen: unknown[] = [];
    const run = async () => {
      for await (const item of parseReferralList(ef, { mapping: { 紹介日: 1, 患者ID: 2, 紹介元医療機関名: 6 } }))
        seen.push(item);
    };
    await expect(run()).rejects.toThrow(FileKindError);
    await expect(run()).rejects.toThrow(
      /紹介データとして読めません。.*1行目: 紹介日「221001234」を日付として読めません/,
    );
    expect(seen).toEqual([]);
  });

  it('gives the same identity to the same referral whatever the file looks like', async () => {
    const a = writeFixture([own, ['R6.4.1', '00012345', clinic, 'しずおか内科', '', '循環器内科', '']], {
      delimiter: ',',
    });
    const b = writeFixture(
      [
        ['紹介日', '患者ID', '医療機関コード', '医療機関名', '紹介先診療科'],
        ['2024/04/01', '12345', clinic, 'しずおか 内科', '循環器内科'],
      ],
      { encoding: 'utf8', bom: true },
    );
    const c = writeFixture([own, ['R6.4.2', '00012345', clinic, 'しずおか内科', '', '循環器内科', '']], {
      delimiter: ',',
    });
    const [ra, rb, rc] = await Promise.all(
      [a, b, c].map(
        async (f) =>
          (await collect(parseReferralList(f, { mapping: suggestMapping((await readListHeader(f)).headerNames!) })))
            .records[0]!,
      ),
    );
    expect(ra!.identity).toBe(rb!.identity);
    expect(ra!.identity).not.toBe(rc!.identity);
    expect(ra!.identity).toMatch(/^referral:[\w-]{27}$/);
  });
});

describe('readListHeader', () => {
  it('returns the format, the detected header and a preview', async () => {
    const file = writeFixture(
      [own, ['R6.4.1', '1', clinic, 'A', '', '', ''], ['R6.4.2', '2', clinic, 'B', '', '', '']],
      { delimiter: ',' },
    );
    const header = await readListHeader(file, { previewRows: 1 });
    expect(header).toMatchObject({
      format: { encoding: 'shift_jis', delimiter: ',' },
      hasHeader: true,
      headerNames: own,
      columnCount: 7,
    });
    expect(header.rows).toEqual([{ rowNumber: 2, cells: ['R6.4.1', '1', clinic, 'A', '', '', ''] }]);
    const bare = await readListHeader(writeFixture([['R6.4.1', '1', 'A']]));
    expect(bare).toMatchObject({ hasHeader: false, headerNames: null });
    expect(bare.rows).toHaveLength(1);
  });
});

describe('parseReverseReferralList', () => {
  it('reads a 逆紹介 list; 管理番号 is the identity when present', async () => {
    const header = ['逆紹介年月日', '患者番号', '紹介先医療機関コード', '紹介先医療機関名', '診療科', '管理番号'];
    const file = writeFixture(
      [
        header,
        ['2024/05/01', '0012', clinic.slice(3), 'しずおか内科', '循環器内科', 'G1'],
        ['2024/05/01', '0013', '', '', '', 'G2'],
      ],
      { delimiter: ',' },
    );
    const mapping = suggestMapping(header, 'reverse_referral');
    const { records, rejected } = await collect(parseReverseReferralList(file, { mapping, prefectureCode: 22 }));
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      reverseReferralDate: '2024-05-01',
      patientKey: '12',
      institutionCode: clinic,
      ownDepartment: '循環器内科',
      sourceId: 'G1',
    });
    expect(rejected).toEqual([{ rowNumber: 3, reason: '逆紹介先医療機関コードまたは逆紹介先医療機関名が必要です' }]);
    const again = writeFixture([header, ['2024/05/02', '12', '', '別名', '', 'G1']], { delimiter: ',' });
    expect((await collect(parseReverseReferralList(again, { mapping }))).records[0]!.identity).toBe(
      records[0]!.identity,
    );
  });
});
