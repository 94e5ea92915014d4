import { readTableBatches, type FileSource, type TableReadOptions, type TableRow } from '../table-reader.ts';
import { isDpcNoDate, parseDpcDate } from '../dates.ts';
import { describeColumnCount } from '../file-kind-error.ts';
import { KindGate, refused, rejected, type Parsed } from '../parsed.ts';
import {
  dataIdPattern,
  facilityCodePattern,
  foreignFacilityReason,
  isDpcHeader,
  stayJoinKeyOf,
  type FacilityScope,
} from './dpc-keys.ts';

/** Rows parsed between two turns of the event loop (a 256 KiB chunk holds ~2,500 EF rows). */
const yieldEvery = 256;

/**
 * What the product keeps of an EF file. EF holds every billed item (millions of rows a year for a
 * 500-bed hospital); the CRM needs only who was admitted or seen when, in which department, and which
 * operations and anesthesia they had. Everything else is read, checked and dropped.
 */
export type EfFact =
  | {
      type: 'stay';
      /** 施設コード|データ識別番号 (no leading zeros)|入院年月日 — EF has no 回数管理番号. */
      joinKey: string;
      facilityCode: string;
      dataId: string;
      admissionDate: string;
      dischargeDate: string | null;
      /** 診療科区分 (様式1 3-digit code) and レセプト科区分 (別表10). */
      departmentCode: string;
      receDepartmentCode: string;
      doctorCode: string;
    }
  | {
      type: 'visit';
      /** 施設コード|データ識別番号|受診日: an outpatient day. */
      joinKey: string;
      facilityCode: string;
      dataId: string;
      visitDate: string;
      birthDate: string | null;
      departmentCode: string;
      receDepartmentCode: string;
      doctorCode: string;
    }
  | {
      type: 'operation';
      joinKey: string;
      identity: string;
      date: string | null;
      /** 解釈番号 as written, e.g. K2821ﾛ. */
      kcode: string;
      receCode: string;
      name: string;
    }
  | {
      type: 'anesthesia';
      joinKey: string;
      identity: string;
      date: string | null;
      /** 解釈番号, e.g. L008. */
      lcode: string;
      receCode: string;
      name: string;
    };

export type EfKind = 'inpatient' | 'outpatient';

const kcodePattern = /^K(\d{3})/;

/**
 * 第10部 手術 runs K000–K915; K920 onwards are 輸血 and 手術医療機器等加算, billed under データ区分 50
 * but not operations in the product's sense.
 */
export function isOperationKCode(code: string): boolean {
  const m = kcodePattern.exec(code);
  return m !== null && Number(m[1]) < 920;
}

function parseRow(
  { rowNumber, cells }: TableRow,
  kind: EfKind,
  last: { key: string },
  scope: FacilityScope,
): Parsed<EfFact>[] {
  if (cells.length !== 31)
    return [rejected(rowNumber, `列数が${cells.length}列です。31列が必要です${describeColumnCount(cells.length)}`)];
  const facilityCode = cells[0]!;
  const dataId = cells[1]!;
  const dataClass = cells[4]!;
  if (!facilityCodePattern.test(facilityCode))
    return [rejected(rowNumber, `施設コード「${facilityCode}」が9桁の数字ではありません`)];
  if (!dataIdPattern.test(dataId))
    return [rejected(rowNumber, `データ識別番号「${dataId}」が10桁以内の英数字ではありません`)];
  if (!/^(\d{2}|SY)$/.test(dataClass))
    return [rejected(rowNumber, `データ区分「${dataClass}」がEFのデータ区分（2桁）ではありません`)];
  const keyDateCell = cells[3]!;
  const keyDate = parseDpcDate(keyDateCell);
  if (!keyDate)
    return [
      rejected(
        rowNumber,
        `${kind === 'inpatient' ? '入院年月日' : '外来受診年月日'}「${keyDateCell}」が日付（YYYYMMDD）ではありません`,
      ),
    ];
  const otherDateCell = cells[2]!;
  const otherDate = parseDpcDate(otherDateCell);
  if (!otherDate && !isDpcNoDate(otherDateCell))
    return [
      rejected(
        rowNumber,
        `${kind === 'inpatient' ? '退院年月日' : '生年月日'}「${otherDateCell}」が日付（YYYYMMDD）ではありません`,
      ),
    ];
  const foreign = foreignFacilityReason(facilityCode, scope);
  if (foreign) return [refused(rowNumber, foreign)];
  const joinKey = stayJoinKeyOf(facilityCode, dataId, keyDate);
  const out: Parsed<EfFact>[] = [];
  // EF rows come grouped by stay; announcing a stay when the key changes keeps memory flat. A file
  // that is not grouped announces a stay more than once, which the assembler absorbs.
  if (joinKey !== last.key) {
    last.key = joinKey;
    const common = {
      joinKey,
      facilityCode,
      dataId,
      departmentCode: cells[25]!,
      receDepartmentCode: cells[24]!,
      doctorCode: cells[26]!,
    };
    out.push({
      kind: 'record',
      rowNumber,
      record:
        kind === 'inpatient'
          ? { type: 'stay', ...common, admissionDate: keyDate, dischargeDate: otherDate }
          : { type: 'visit', ...common, visitDate: keyDate, birthDate: otherDate },
    });
  }
  const interpretation = cells[9]!;
  if (dataClass === '50' && isOperationKCode(interpretation)) {
    out.push({
      kind: 'record',
      rowNumber,
      record: {
        type: 'operation',
        joinKey,
        identity: `${joinKey}|op|${cells[5]}|${cells[6]}|${cells[8]}`,
        date: parseDpcDate(cells[23]!),
        kcode: interpretation,
        receCode: cells[8]!,
        name: cells[10]!,
      },
    });
  } else if (dataClass === '54' && interpretation.startsWith('L')) {
    out.push({
      kind: 'record',
      rowNumber,
      record: {
        type: 'anesthesia',
        joinKey,
        identity: `${joinKey}|an|${cells[5]}|${cells[6]}|${cells[8]}`,
        date: parseDpcDate(cells[23]!),
        lcode: interpretation,
        receCode: cells[8]!,
        name: cells[10]!,
      },
    });
  }
  return out;
}

export interface EfReadOptions extends TableReadOptions, FacilityScope {
  /** 入院EF (cols 3/4 = 退院/入院年月日) or 外来EF (cols 3/4 = 生年月日/外来受診年月日). */
  kind: EfKind;
  /** Called with the count of rows read, data rows only; for progress and figures. */
  onRowsRead?: ((rows: number) => void) | undefined;
  /** Kept up to date with the data rows read so far (facts are sparse: most rows yield nothing). */
  progress?: { rows: number } | undefined;
}

/**
 * Streams an EF統合ファイル (31 columns) and yields only the facts the product uses (see EfFact).
 * A row is still validated, so a broken row is reported with its number even when nothing of it is kept.
 */
export async function* parseEf(source: FileSource, options: EfReadOptions): AsyncGenerator<Parsed<EfFact>> {
  const kind = options.kind;
  const gate = new KindGate<EfFact>(
    kind === 'inpatient' ? 'hospital_admission_ef_file' : 'outpatient_ef_file',
    'タブ区切り31列（施設コード、データ識別番号、' +
      (kind === 'inpatient' ? '退院年月日、入院年月日' : '生年月日、外来受診年月日') +
      '、データ区分、順序番号、行為明細番号 …）を想定しています',
  );
  const last = { key: '' };
  const progress = options.progress ?? { rows: 0 };
  let count = 0;
  let first = true;
  for await (const batch of readTableBatches(source, options)) {
    for (const row of batch) {
      if (first) {
        first = false;
        if (isDpcHeader(row.cells)) continue;
      }
      progress.rows = ++count;
      // Give the event loop a turn now and then: the worker's projections share it with this parse.
      if (progress.rows % yieldEvery === 0) await new Promise((resolve) => setImmediate(resolve));
      for (const item of parseRow(row, kind, last, options)) yield* gate.accept(item);
    }
  }
  gate.finish();
  options.onRowsRead?.(count);
}
