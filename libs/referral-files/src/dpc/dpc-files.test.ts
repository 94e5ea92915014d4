import { describe, expect, it } from 'vitest';
import { FileKindError } from '../file-kind-error.ts';
import { collect, writeFixture } from '../test-files.ts';
import { parseDFile } from './d-file.ts';
import { parseEf, type EfFact } from './ef.ts';
import { ff1Columns, parseFf1, type Ff1Row } from './ff1.ts';
import { StayAssembler } from './stay-assembler.ts';

const fac = '221234567';
const pad = (cells: readonly string[], n: number) => [...cells, ...Array<string>(n - cells.length).fill('')];
const ff1 = (id: string, adm: string, code: string, seq: string, payloads: string[], count = '0') =>
  pad([fac, id, adm, count, '0', code, '20180401', seq, ...payloads], 17);
/** An EF row: the columns a test cares about, the rest blank. */
const ef = (
  id: string,
  dis: string,
  adm: string,
  dataClass: string,
  o: {
    order?: string;
    detail?: string;
    rece?: string;
    interp?: string;
    name?: string;
    date?: string;
    dept?: string;
  } = {},
) => {
  const c = pad(
    [fac, id, dis, adm, dataClass, o.order ?? '1', o.detail ?? '001', '', o.rece ?? '', o.interp ?? '', o.name ?? ''],
    31,
  );
  c[23] = o.date ?? adm;
  c[25] = o.dept ?? '';
  return c;
};
const dRow = (id: string, dis: string, adm: string, dpc: string, end = dis) => {
  const c = pad([fac, id, dis, adm, '93', '1'], 30);
  c[25] = adm;
  c[26] = end;
  c[28] = dpc;
  return c;
};

const stayLong = [
  ff1('0000012345', '20240401', 'A000010', '0', ['19500101', '1', '4200001']),
  ff1('0000012345', '20240401', 'A000020', '0', ['20240401', '1', '1', '0', '100', '0']),
  ff1('0000012345', '20240401', 'A000030', '0', ['20240410', '2', '1', '0']),
  ff1('0000012345', '20240401', 'A000040', '0', ['', '510', '0']),
  ff1('0000012345', '20240401', 'A006010', '0', ['', 'K802', '', '', '', '', '', '', '胆のう結石症']),
  ff1('0000012345', '20240401', 'A006030', '0', ['', 'K800', '', '', '', '', '', '', '別の病名']),
  ff1('0000012345', '20240401', 'A007010', '1', [
    '20240402',
    'K672-2',
    '',
    '1',
    '0',
    '1',
    '',
    '',
    '腹腔鏡下胆嚢摘出術',
  ]),
  ff1('0000012345', '20240401', 'ADL0010', '0', ['', '2222222222']),
  ff1('0000012345', '20240401', 'Z999999', '0', ['未知', 'の', '項目']),
];

describe('parseFf1', () => {
  it('reads the long format with or without a header, keeping every payload', async () => {
    const bare = await collect(parseFf1(writeFixture(stayLong)));
    const headed = await collect(parseFf1(writeFixture([[...ff1Columns], ...stayLong])));
    expect(bare.rejected).toEqual([]);
    expect(headed.records).toEqual(bare.records);
    const unknown = bare.records.find((r) => r.code === 'Z999999')!;
    expect(unknown.payloads).toEqual(['未知', 'の', '項目', '', '', '', '', '', '']);
    expect(unknown.identity).toBe(`${fac}|12345|20240401|0|0|Z999999|0`);
  });

  it('rejects a bad row with its number and keeps the rest', async () => {
    const rows = [
      ...stayLong.slice(0, 2),
      ff1('0000012345', '20240431', 'A000030', '0', []),
      ff1('0000012345', '20240401', 'bad', '0', []),
      stayLong[3]!,
    ];
    const { records, rejected } = await collect(parseFf1(writeFixture(rows)));
    expect(records).toHaveLength(3);
    expect(rejected).toEqual([
      { rowNumber: 3, reason: '入院年月日「20240431」が日付（YYYYMMDD）ではありません' },
      { rowNumber: 4, reason: 'コード「bad」が様式1のコード（例 A000010）ではありません' },
    ]);
  });

  it('fails at once on an EF file, saying what it expected and what it saw', async () => {
    const file = writeFixture(Array.from({ length: 30 }, () => ef('1', '20240410', '20240401', '90')));
    const seen: unknown[] = [];
    const run = async () => {
      for await (const item of parseFf1(file)) seen.push(item);
    };
    await expect(run()).rejects.toThrow(FileKindError);
    await expect(run()).rejects.toThrow(/17列.*31列: EF統合ファイルの形式です/);
    expect(seen).toEqual([]);
  });

  it('reads the wide format into the same stay as the long one', async () => {
    const wide = writeFixture(
      [
        [
          '施設コード',
          'b1',
          'c2',
          'c4',
          'c5',
          'c13',
          'a2',
          'd2',
          'd1',
          'A000010_P1',
          'A000010_P2',
          'A000010_P3',
          'A000020_P2',
          'A000020_P5',
          'A000020_P6',
          'A000020_P4',
          'A000030_P3',
          'A000030_P4',
          'A000040_P3',
          'A006030_P2',
          'A006030_P9',
          'A007010_1_P1',
          'A007010_1_P2',
          'A007010_1_P4',
          'A007010_1_P5',
          'A007010_1_P6',
          'A007010_1_P9',
          'ADL0010_P2',
          'Z999999_P1',
          'Z999999_P2',
          'Z999999_P3',
        ],
        [
          fac,
          '0000012345',
          '20240401',
          '20240410',
          '2',
          '1',
          '510',
          'K802',
          '胆のう結石症',
          '19500101',
          '1',
          '4200001',
          '1',
          '100',
          '0',
          '0',
          '1',
          '0',
          '0',
          'K800',
          '別の病名',
          '20240402',
          'K672-2',
          '1',
          '0',
          '1',
          '腹腔鏡下胆嚢摘出術',
          '2222222222',
          '未知',
          'の',
          '項目',
        ],
      ],
      { encoding: 'utf8', delimiter: ',', eol: '\n' },
    );
    const assemble = async (file: string) => {
      const a = new StayAssembler();
      const { records, rejected } = await collect(parseFf1(file));
      expect(rejected).toEqual([]);
      records.forEach((r) => a.addFf1(r));
      return a.stays();
    };
    const fromWide = await assemble(wide);
    const fromLong = await assemble(writeFixture(stayLong));
    expect(fromWide).toEqual(fromLong);
    expect(fromLong).toHaveLength(1);
  });

  it('reads a wide file without a 施設コード column as the facility given, operations by their Japanese names', async () => {
    const wide = writeFixture([
      [
        'データ識別番号',
        '入院年月日',
        '退院年月日',
        '診療科コード',
        '手術日',
        'Ｋコード',
        '麻酔',
        '手術名',
        '手術日2',
        '手術コード2',
        '手術名2',
      ],
      [
        '0000012345',
        '20240401',
        '20240410',
        '510',
        '20240402',
        'K672-2',
        '1',
        '腹腔鏡下胆嚢摘出術',
        '20240405',
        'K6335',
        '鼠径ヘルニア手術',
      ],
      ['0000012346', '20240403', '20240404', '130', '', '', '', '', '', '', ''],
    ]);
    const { records, rejected } = await collect(parseFf1(wide, { facilityCode: fac }));
    expect(rejected).toEqual([]);
    const operations = records.filter((r) => r.code === 'A007010');
    expect(
      operations.map((r) => [
        r.facilityCode,
        r.dataId,
        r.seq,
        r.payloads[0],
        r.payloads[1],
        r.payloads[5],
        r.payloads[8],
      ]),
    ).toEqual([
      [fac, '0000012345', 1, '20240402', 'K672-2', '1', '腹腔鏡下胆嚢摘出術'],
      [fac, '0000012345', 2, '20240405', 'K6335', '', '鼠径ヘルニア手術'],
    ]);
    const assembler = new StayAssembler();
    records.forEach((r) => assembler.addFf1(r));
    const stays = assembler.stays();
    expect(stays.map((s) => [s.identity, s.kcode, s.operationDate, s.departmentCode])).toEqual([
      [`${fac}|12345|20240401|0`, 'K672-2', '2024-04-02', '510'],
      [`${fac}|12346|20240403|0`, null, null, '130'],
    ]);
    // Without a facility given, a wide file without the column is refused row by row (so, as a whole).
    await expect(collect(parseFf1(wide))).rejects.toThrow(/施設コードがありません/);
  });
});

describe('parseEf', () => {
  const rows = [
    ef('0000012345', '20240410', '20240401', '90', { rece: '190117710', name: '急性期一般入院料１', dept: '510' }),
    ef('0000012345', '20240410', '20240401', '50', { order: '4', detail: '000' }),
    ef('0000012345', '20240410', '20240401', '50', {
      order: '4',
      rece: '150254110',
      interp: 'K672-2',
      name: '腹腔鏡下胆嚢摘出術',
      date: '20240402',
    }),
    ef('0000012345', '20240410', '20240401', '50', {
      order: '4',
      detail: '002',
      rece: '150326410',
      interp: 'K939-5',
      name: '加算',
      date: '20240402',
    }),
    ef('0000012345', '20240410', '20240401', '54', {
      order: '5',
      rece: '150333210',
      interp: 'L008',
      name: '閉鎖循環式全身麻酔４',
      date: '20240402',
    }),
    ef('0000067890', '00000000', '20240405', '21', { dept: '350' }),
  ];

  it('keeps stays, operations and anesthesia only', async () => {
    const { records, rejected } = await collect(parseEf(writeFixture(rows), { kind: 'inpatient' }));
    expect(rejected).toEqual([]);
    expect(records.map((r) => r.type)).toEqual(['stay', 'operation', 'anesthesia', 'stay']);
    expect(records[0]).toMatchObject({
      joinKey: `${fac}|12345|20240401`,
      dischargeDate: '2024-04-10',
      departmentCode: '510',
    });
    expect(records[1]).toMatchObject({ kcode: 'K672-2', date: '2024-04-02', receCode: '150254110' });
    expect(records[3]).toMatchObject({ joinKey: `${fac}|67890|20240405`, dischargeDate: null });
  });

  it('reads outpatient EF columns 3/4 as 生年月日/受診日', async () => {
    const { records } = await collect(
      parseEf(writeFixture([ef('42', '19600102', '20240501', '11', { dept: '010' })]), { kind: 'outpatient' }),
    );
    expect(records).toEqual([
      expect.objectContaining({
        type: 'visit',
        visitDate: '2024-05-01',
        birthDate: '1960-01-02',
        departmentCode: '010',
      }),
    ]);
  });

  it('fails at once on an FF1 file, and on a D file', async () => {
    await expect(collect(parseEf(writeFixture(stayLong), { kind: 'inpatient' }))).rejects.toThrow(
      /入院EF統合ファイルとして読めません。.*17列: 様式1（FF1）の形式です/,
    );
    await expect(
      collect(parseEf(writeFixture([dRow('1', '20240410', '20240401', '060335xx97x0xx')]), { kind: 'inpatient' })),
    ).rejects.toThrow(/30列/);
  });

  it('rejects a bad row by number', async () => {
    const bad = ef('0000012345', '20240410', '2024041', '90');
    const { rejected } = await collect(parseEf(writeFixture([rows[0]!, bad]), { kind: 'inpatient' }));
    expect(rejected).toEqual([{ rowNumber: 2, reason: '入院年月日「2024041」が日付（YYYYMMDD）ではありません' }]);
  });
});

describe('parseDFile', () => {
  it('yields one fact per stay and DPC code, with header or without', async () => {
    const body = [
      dRow('12345', '20240410', '20240401', '060335xx97x0xx'),
      dRow('12345', '20240410', '20240401', '060335xx97x0xx'),
    ];
    const { records, rejected } = await collect(
      parseDFile(writeFixture([pad(['施設コード', 'データ識別番号'], 30), ...body])),
    );
    expect(rejected).toEqual([]);
    expect(records).toEqual([expect.objectContaining({ joinKey: `${fac}|12345|20240401`, dpcCode: '060335xx97x0xx' })]);
    await expect(collect(parseDFile(writeFixture(stayLong)))).rejects.toThrow(/Dファイルとして読めません/);
  });
});

describe('StayAssembler', () => {
  async function feed(a: StayAssembler, ff1Rows: string[][], efRows: string[][], dRows: string[][]) {
    (await collect(parseFf1(writeFixture(ff1Rows)))).records.forEach((r: Ff1Row) => a.addFf1(r));
    (await collect(parseEf(writeFixture(efRows), { kind: 'inpatient' }))).records.forEach((r: EfFact) => a.addEf(r));
    (await collect(parseDFile(writeFixture(dRows)))).records.forEach((r) => a.addD(r));
  }

  it('builds one stay from FF1 + EF + D, FF1 winning and EF filling in', async () => {
    const a = new StayAssembler({ dpcNames: new Map([['060335xx97x0xx', '胆嚢水腫、胆嚢炎等']]) });
    await feed(
      a,
      stayLong,
      [
        ef('12345', '20240410', '20240401', '50', {
          rece: '150254110',
          interp: 'K672-2',
          name: 'EF側の名称',
          date: '20240402',
        }),
        ef('67890', '20240420', '20240415', '50', {
          rece: '150159010',
          interp: 'K6335',
          name: 'ヘルニア手術（鼠径ヘルニア）',
          date: '20240416',
          dept: '510',
        }),
        ef('67890', '20240420', '20240415', '54', {
          rece: '150233410',
          interp: 'L008',
          name: '閉鎖循環式全身麻酔５',
          date: '20240416',
        }),
      ],
      [
        dRow('0000012345', '20240410', '20240401', '060335xx97x0xx'),
        dRow('67890', '20240420', '20240415', '060160x001xxxx'),
      ],
    );
    const [first, second] = a.stays();
    expect(first).toMatchObject({
      identity: `${fac}|12345|20240401|0`,
      patientKey: '12345',
      admissionDate: '2024-04-01',
      dischargeDate: '2024-04-10',
      departmentCode: '510',
      icd10Code: 'K802',
      diseaseName: '胆のう結石症',
      kcode: 'K672-2',
      operationName: '腹腔鏡下胆嚢摘出術',
      operationDate: '2024-04-02',
      anesthesia: { code: '1', name: null },
      dpcCode: '060335xx97x0xx',
      dpcName: '胆嚢水腫、胆嚢炎等',
      referralIn: true,
      admissionRoute: '1',
      dischargeDestination: '2',
      outcome: '1',
      sex: '1',
      postalCode: '4200001',
      scores: { ADL0010: ['', '2222222222'] },
      sources: { ff1: true, ef: true, d: true },
    });
    expect(first!.operations).toHaveLength(1);
    expect(second).toMatchObject({
      identity: `${fac}|67890|20240415|0`,
      dischargeDate: '2024-04-20',
      departmentCode: '510',
      kcode: 'K6335',
      operationDate: '2024-04-16',
      anesthesia: { code: 'L008', name: '閉鎖循環式全身麻酔５' },
      dpcCode: '060160x001xxxx',
      sources: { ff1: false, ef: true, d: true },
    });
  });

  it('uses 医療資源最投入傷病 when 主傷病 is missing, and gives the same stays whatever the feeding order', async () => {
    const rows = stayLong.filter((r) => r[5] !== 'A006010');
    const a = new StayAssembler();
    const b = new StayAssembler();
    const efRows = [ef('12345', '20240410', '20240401', '90', { dept: '999' })];
    const dRows = [dRow('12345', '20240410', '20240401', '060335xx97x0xx')];
    await feed(a, rows, efRows, dRows);
    (await collect(parseDFile(writeFixture(dRows)))).records.forEach((r) => b.addD(r));
    (await collect(parseEf(writeFixture(efRows), { kind: 'inpatient' }))).records.forEach((r) => b.addEf(r));
    (await collect(parseFf1(writeFixture(rows)))).records.forEach((r) => b.addFf1(r));
    expect(a.stays()[0]).toMatchObject({ icd10Code: 'K800', diseaseName: '別の病名', departmentCode: '510' });
    expect(b.stays()).toEqual(a.stays());
  });
});

describe("the tenant's facility scope", () => {
  const other = '139999999';
  const foreign = (cells: string[]) => [other, ...cells.slice(1)];
  const reason = `施設コード「${other}」は自院・グループ病院の施設コード（${fac}）ではありません`;
  const scope = { facilityCodes: new Set([fac]) };

  it("refuses another hospital's rows by number in EF, D and FF1, keeping the tenant's own", async () => {
    const efRows = [
      ef('1', '20240410', '20240401', '50', { rece: '150254110', interp: 'K672-2', date: '20240402' }),
      foreign(ef('2', '20240410', '20240401', '50', { rece: '150254110', interp: 'K672-2', date: '20240402' })),
    ];
    const efRead = await collect(parseEf(writeFixture(efRows), { kind: 'inpatient', ...scope }));
    expect(efRead.records.map((r) => r.type)).toEqual(['stay', 'operation']);
    expect(efRead.rejected).toEqual([{ rowNumber: 2, reason }]);

    const dRead = await collect(
      parseDFile(writeFixture([foreign(dRow('2', '20240410', '20240401', '060335xx97x0xx'))]), scope),
    );
    // A file of nothing but another hospital's rows is still a D file: its rows are refused, it does not fail.
    expect(dRead).toEqual({ records: [], rejected: [{ rowNumber: 1, reason }] });

    const ff1Read = await collect(parseFf1(writeFixture([...stayLong.slice(0, 2), foreign(stayLong[2]!)]), scope));
    expect(ff1Read.records).toHaveLength(2);
    expect(ff1Read.rejected).toEqual([{ rowNumber: 3, reason }]);
  });

  it('takes any 施設コード when the tenant has no own hospital set', async () => {
    const { rejected } = await collect(
      parseDFile(writeFixture([foreign(dRow('2', '20240410', '20240401', '060335xx97x0xx'))]), {
        facilityCodes: new Set(),
      }),
    );
    expect(rejected).toEqual([]);
  });

  it('reports the data rows read so far, though most EF rows yield nothing', async () => {
    const progress = { rows: 0 };
    const seen: number[] = [];
    const rows = [
      pad(['施設コード', 'データ識別番号'], 31),
      ...Array.from({ length: 50 }, () => ef('1', '20240410', '20240401', '90')),
      ef('1', '20240410', '20240401', '50', { rece: '150254110', interp: 'K672-2', date: '20240402' }),
      ...Array.from({ length: 9 }, () => ef('1', '20240410', '20240401', '90')),
    ];
    for await (const item of parseEf(writeFixture(rows), { kind: 'inpatient', progress }))
      if (item.kind === 'record') seen.push(progress.rows);
    expect(seen).toEqual([1, 51]);
    expect(progress.rows).toBe(60);
  });
});
