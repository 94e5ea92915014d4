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

/** What the product keeps of a D file: the 14-digit DPC code of a stay and the period it was billed for. */
export interface DpcFact {
  /** 施設コード|データ識別番号|入院年月日 (no 回数管理番号 in D). */
  joinKey: string;
  facilityCode: string;
  dataId: string;
  admissionDate: string;
  dischargeDate: string | null;
  /** 分類番号: MDC(2) + 分類(4) + 入院種別(1) + … 14 characters, `x` for 該当なし. */
  dpcCode: string;
  /** 算定開始日 / 算定終了日: a stay's code can change between monthly claims; the latest wins. */
  periodStart: string | null;
  periodEnd: string | null;
  departmentCode: string;
}

const dpcCodePattern = /^\d{6}[0-9x]{8}$/i;

function parseRow({ rowNumber, cells }: TableRow, scope: FacilityScope): Parsed<DpcFact> | null {
  if (cells.length !== 30)
    return rejected(rowNumber, `列数が${cells.length}列です。30列が必要です${describeColumnCount(cells.length)}`);
  const [facilityCode, dataId, dischargeCell, admissionCell] = cells as [string, string, string, string];
  if (!facilityCodePattern.test(facilityCode))
    return rejected(rowNumber, `施設コード「${facilityCode}」が9桁の数字ではありません`);
  if (!dataIdPattern.test(dataId))
    return rejected(rowNumber, `データ識別番号「${dataId}」が10桁以内の英数字ではありません`);
  const admissionDate = parseDpcDate(admissionCell);
  if (!admissionDate) return rejected(rowNumber, `入院年月日「${admissionCell}」が日付（YYYYMMDD）ではありません`);
  const dischargeDate = parseDpcDate(dischargeCell);
  if (!dischargeDate && !isDpcNoDate(dischargeCell))
    return rejected(rowNumber, `退院年月日「${dischargeCell}」が日付（YYYYMMDD）ではありません`);
  const foreign = foreignFacilityReason(facilityCode, scope);
  if (foreign) return refused(rowNumber, foreign);
  const dpcCode = cells[28]!;
  // 出来高 rows of a D file carry no 分類番号; they say nothing the product uses.
  if (dpcCode === '') return null;
  if (!dpcCodePattern.test(dpcCode))
    return rejected(rowNumber, `分類番号「${dpcCode}」が14桁のDPCコードではありません`);
  return {
    kind: 'record',
    rowNumber,
    record: {
      joinKey: stayJoinKeyOf(facilityCode, dataId, admissionDate),
      facilityCode,
      dataId,
      admissionDate,
      dischargeDate,
      dpcCode: dpcCode.toLowerCase(),
      periodStart: parseDpcDate(cells[25]!),
      periodEnd: parseDpcDate(cells[26]!),
      departmentCode: cells[19]!,
    },
  };
}

/**
 * Streams a Dファイル (30 columns, DPC包括請求). One fact is yielded per stay and DPC code (the
 * 包括 rows of a stay repeat the code; only a change is passed on).
 */
export interface DFileReadOptions extends TableReadOptions, FacilityScope {
  /** Kept up to date with the data rows read so far (one fact per stay and code: most rows yield nothing). */
  progress?: { rows: number } | undefined;
}

export async function* parseDFile(source: FileSource, options: DFileReadOptions = {}): AsyncGenerator<Parsed<DpcFact>> {
  const gate = new KindGate<DpcFact>(
    'd_file',
    'タブ区切り30列（施設コード、データ識別番号、退院年月日、入院年月日、データ区分 … 算定開始日、算定終了日、算定起算日、分類番号、医療機関係数）を想定しています',
  );
  const progress = options.progress ?? { rows: 0 };
  let first = true;
  let last = '';
  for await (const batch of readTableBatches(source, options)) {
    for (const row of batch) {
      if (first) {
        first = false;
        if (isDpcHeader(row.cells)) continue;
      }
      progress.rows++;
      // Give the event loop a turn now and then: the worker's projections share it with this parse.
      if (progress.rows % yieldEvery === 0) await new Promise((resolve) => setImmediate(resolve));
      const parsed = parseRow(row, options);
      if (parsed === null) continue;
      if (parsed.kind === 'record') {
        const key = `${parsed.record.joinKey}|${parsed.record.dpcCode}|${parsed.record.periodEnd}`;
        if (key === last) continue;
        last = key;
      }
      yield* gate.accept(parsed);
    }
  }
  gate.finish();
}
