import { readTableBatches, type FileSource, type TableReadOptions, type TableRow } from '../table-reader.ts';
import { parseDpcDate } from '../dates.ts';
import { describeColumnCount } from '../file-kind-error.ts';
import { KindGate, refused, rejected, type Parsed } from '../parsed.ts';
import {
  dataIdPattern,
  facilityCodePattern,
  foreignFacilityReason,
  isDpcHeader,
  stayKeyOf,
  type FacilityScope,
} from './dpc-keys.ts';

/**
 * One row of 様式1 in the long (縦持ち) layout, every payload kept whatever the code, so that a later
 * fiscal year's spec loses nothing. A wide (FL00001) row is turned into the same rows.
 */
export interface Ff1Row {
  /** stay key + 統括診療情報番号 + コード + 連番: unique within a submission, the same on re-upload. */
  identity: string;
  stayKey: string;
  facilityCode: string;
  dataId: string;
  /** ISO date. */
  admissionDate: string;
  /** 回数管理番号 ('0' unless a patient is admitted twice on one day). */
  countNumber: string;
  /** 統括診療情報番号: '0' for the parent 様式1, other values for ward-transfer children. */
  parentNumber: string;
  /** Record code, e.g. A000020; a wide column we do not know keeps its header here. */
  code: string;
  version: string;
  seq: number;
  /** ペイロード1…9, as written (trimmed). */
  payloads: string[];
}

export const ff1Columns = [
  '施設コード',
  'データ識別番号',
  '入院年月日',
  '回数管理番号',
  '統括診療情報番号',
  'コード',
  'バージョン',
  '連番',
  ...Array.from({ length: 9 }, (_, i) => `ペイロード${i + 1}`),
] as const;

const recordCodePattern = /^[A-Z][A-Z0-9]{6}$/;
const longExpectation =
  'タブ区切り17列（施設コード、データ識別番号、入院年月日、回数管理番号、統括診療情報番号、コード、バージョン、連番、ペイロード1〜9）の縦持ち形式、または見出し付きの横持ち（FL00001）形式を想定しています';

function stayFields(
  rowNumber: number,
  facilityCode: string,
  dataId: string,
  admission: string,
  countNumber: string,
): Parsed<never> | { admissionDate: string; stayKey: string } {
  if (!facilityCodePattern.test(facilityCode))
    return rejected(rowNumber, `施設コード「${facilityCode}」が9桁の数字ではありません`);
  if (!dataIdPattern.test(dataId))
    return rejected(rowNumber, `データ識別番号「${dataId}」が10桁以内の英数字ではありません`);
  const admissionDate = parseDpcDate(admission);
  if (!admissionDate) return rejected(rowNumber, `入院年月日「${admission}」が日付（YYYYMMDD）ではありません`);
  if (!/^\d{0,2}$/.test(countNumber)) return rejected(rowNumber, `回数管理番号「${countNumber}」が数字ではありません`);
  return { admissionDate, stayKey: stayKeyOf(facilityCode, dataId, admissionDate, countNumber) };
}

function parseLongRow({ rowNumber, cells }: TableRow): Parsed<Ff1Row> {
  if (cells.length !== 17)
    return rejected(rowNumber, `列数が${cells.length}列です。17列が必要です${describeColumnCount(cells.length)}`);
  const [facilityCode, dataId, admission, countCell, parentCell, code, version, seqCell] = cells as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const stay = stayFields(rowNumber, facilityCode, dataId, admission, countCell);
  if ('kind' in stay) return stay;
  if (!recordCodePattern.test(code))
    return rejected(rowNumber, `コード「${code}」が様式1のコード（例 A000010）ではありません`);
  if (!/^\d{1,3}$/.test(seqCell)) return rejected(rowNumber, `連番「${seqCell}」が数字ではありません`);
  const countNumber = countCell === '' ? '0' : countCell;
  const parentNumber = parentCell === '' ? '0' : parentCell;
  const seq = Number(seqCell);
  return {
    kind: 'record',
    rowNumber,
    record: {
      identity: `${stay.stayKey}|${parentNumber}|${code}|${seq}`,
      stayKey: stay.stayKey,
      facilityCode,
      dataId,
      admissionDate: stay.admissionDate,
      countNumber,
      parentNumber,
      code,
      version,
      seq,
      payloads: cells.slice(8, 17),
    },
  };
}

type WideTarget =
  | { stay: 'facilityCode' | 'dataId' | 'admission' | 'countNumber' | 'parentNumber' }
  | { code: string; seq: number; payload: number };

/**
 * FL00001 item codes as documented for the FF1 登録データ取込ファイル (domain research §1.2) and their
 * Japanese names, plus our own generic `<コード>[_<連番>]_P<n>` columns, which make a wide file as
 * expressive as the long one (the demo generator and the equivalence test use them).
 */
const wideNamed: Record<string, WideTarget> = {
  施設コード: { stay: 'facilityCode' },
  b1: { stay: 'dataId' },
  データ識別番号: { stay: 'dataId' },
  mpe1: { stay: 'parentNumber' },
  統括診療情報番号: { stay: 'parentNumber' },
  回数管理番号: { stay: 'countNumber' },
  c2: { stay: 'admission' },
  入院年月日: { stay: 'admission' },
  c4: { code: 'A000030', seq: 0, payload: 1 },
  退院年月日: { code: 'A000030', seq: 0, payload: 1 },
  c5: { code: 'A000030', seq: 0, payload: 2 },
  退院先: { code: 'A000030', seq: 0, payload: 2 },
  c13: { code: 'A000020', seq: 0, payload: 3 },
  他院よりの紹介の有無: { code: 'A000020', seq: 0, payload: 3 },
  a2: { code: 'A000040', seq: 0, payload: 2 },
  診療科コード: { code: 'A000040', seq: 0, payload: 2 },
  d2: { code: 'A006010', seq: 0, payload: 2 },
  主傷病ICD10コード: { code: 'A006010', seq: 0, payload: 2 },
  d4: { code: 'A006010', seq: 0, payload: 4 },
  主傷病傷病名コード: { code: 'A006010', seq: 0, payload: 4 },
  d1: { code: 'A006010', seq: 0, payload: 9 },
  主傷病名: { code: 'A006010', seq: 0, payload: 9 },
};
const wideGeneric = /^([A-Z][A-Z0-9]{6})(?:_(\d{1,3}))?_P([1-9])$/;

/**
 * A wide file's operation columns by the Japanese names of A007010's payloads (domain research §1.2:
 * P1 手術日, P2 点数表コード (Kコード), P6 麻酔, P9 手術名), numbered for a second and later operation
 * (手術日2 …, 連番 2 …). The FL00001 item codes of these are not in the research, so they are not guessed.
 */
const wideOperationPayloads: Record<string, number> = {
  手術日: 1,
  手術年月日: 1,
  点数表コード: 2,
  手術コード: 2,
  Kコード: 2,
  麻酔: 6,
  麻酔コード: 6,
  手術名: 9,
  手術名称: 9,
};
const wideOperation = new RegExp(`^(${Object.keys(wideOperationPayloads).join('|')})([1-9]?)$`);

function wideTarget(header: string, index: number): WideTarget {
  const normalized = header.normalize('NFKC').replace(/\s/g, '');
  const named = wideNamed[header] ?? wideNamed[normalized];
  if (named) return named;
  const operation = wideOperation.exec(normalized.replace(/^k/, 'K'));
  if (operation)
    return { code: 'A007010', seq: Number(operation[2] || 1), payload: wideOperationPayloads[operation[1]!]! };
  const m = wideGeneric.exec(header);
  if (m) return { code: m[1]!, seq: Number(m[2] ?? 0), payload: Number(m[3]) };
  // Unknown columns are kept, not dropped: one row per column, the header as its code.
  return { code: header === '' ? `列${index + 1}` : header, seq: 0, payload: 1 };
}

function isWideHeader(cells: readonly string[]): boolean {
  const targets = cells.map((c, i) => wideTarget(c, i));
  const has = (s: string) => targets.some((t) => 'stay' in t && t.stay === s);
  return has('dataId') && has('admission') && cells.length !== 17;
}

function* parseWideRow(
  { rowNumber, cells }: TableRow,
  targets: readonly WideTarget[],
  defaultFacility: string | undefined,
): Generator<Parsed<Ff1Row>> {
  const stay: Record<string, string> = { facilityCode: defaultFacility ?? '', countNumber: '0', parentNumber: '0' };
  const groups = new Map<string, { code: string; seq: number; payloads: string[] }>();
  targets.forEach((t, i) => {
    const value = cells[i] ?? '';
    if ('stay' in t) {
      if (value !== '' || t.stay !== 'facilityCode') stay[t.stay] = value;
      return;
    }
    if (value === '') return;
    const key = `${t.code}|${t.seq}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { code: t.code, seq: t.seq, payloads: Array<string>(9).fill('') }));
    group.payloads[t.payload - 1] = value;
  });
  if (stay.facilityCode === '') {
    yield rejected(rowNumber, '施設コードがありません（横持ち形式では施設コード列か取込時の指定が必要です）');
    return;
  }
  const fields = stayFields(rowNumber, stay.facilityCode!, stay.dataId ?? '', stay.admission ?? '', stay.countNumber!);
  if ('kind' in fields) {
    yield fields;
    return;
  }
  const parentNumber = stay.parentNumber === '' ? '0' : stay.parentNumber!;
  const countNumber = stay.countNumber === '' ? '0' : stay.countNumber!;
  // The admission date is part of A000020 in the long form; keep the rows equivalent.
  const a20 = groups.get('A000020|0');
  if (a20) a20.payloads[0] ||= stay.admission!;
  else groups.set('A000020|0', { code: 'A000020', seq: 0, payloads: [stay.admission!, ...Array<string>(8).fill('')] });
  for (const g of groups.values()) {
    yield {
      kind: 'record',
      rowNumber,
      record: {
        identity: `${fields.stayKey}|${parentNumber}|${g.code}|${g.seq}`,
        stayKey: fields.stayKey,
        facilityCode: stay.facilityCode!,
        dataId: stay.dataId!,
        admissionDate: fields.admissionDate,
        countNumber,
        parentNumber,
        code: g.code,
        version: '',
        seq: g.seq,
        payloads: g.payloads,
      },
    };
  }
}

export interface Ff1ReadOptions extends TableReadOptions, FacilityScope {
  /** 施設コード for a wide file that has no such column. */
  facilityCode?: string | undefined;
}

/**
 * Streams a 様式1 file, long (17 columns, header optional) or wide (FL00001: one row per stay, header
 * of item codes required), as long rows. A file that is neither fails before the first row is yielded.
 */
export async function* parseFf1(source: FileSource, options: Ff1ReadOptions = {}): AsyncGenerator<Parsed<Ff1Row>> {
  const gate = new KindGate<Ff1Row>('ff1_file', longExpectation);
  let mode: 'unknown' | 'long' | 'wide' = 'unknown';
  let targets: WideTarget[] = [];
  for await (const batch of readTableBatches(source, options)) {
    for (const row of batch) {
      if (mode === 'unknown') {
        if (isDpcHeader(row.cells) && row.cells.length === 17) {
          mode = 'long';
          continue;
        }
        if (isWideHeader(row.cells)) {
          mode = 'wide';
          targets = row.cells.map((c, i) => wideTarget(c, i));
          continue;
        }
        mode = 'long';
      }
      if (mode === 'long') {
        const item = parseLongRow(row);
        const foreign = item.kind === 'record' ? foreignFacilityReason(item.record.facilityCode, options) : null;
        yield* gate.accept(foreign ? refused(item.rowNumber, foreign) : item);
      } else {
        // A wide row is one stay: refused once, not once per item it holds.
        const items = [...parseWideRow(row, targets, options.facilityCode)];
        const head = items[0];
        const foreign = head?.kind === 'record' ? foreignFacilityReason(head.record.facilityCode, options) : null;
        if (foreign) yield* gate.accept(refused(head!.rowNumber, foreign));
        else for (const item of items) yield* gate.accept(item);
      }
    }
  }
  gate.finish();
}
