import type { FileSource } from '../table-reader.ts';
import { parseListDate } from '../dates.ts';
import { parseInstitutionCode } from '../institution-code.ts';
import { KindGate, hashIdentity, patientKeyOf, rejected, type Parsed } from '../parsed.ts';
import { readMappedList, type ListReadOptions, type MappedRow } from './list-file.ts';
import type { ReferralColumn, ReverseReferralColumn } from './list-columns.ts';

export interface ReferralRecord {
  /** See docs/referral-files.md: 管理番号 when the list has one, else the row's key content. */
  identity: string;
  referralDate: string;
  patientId: string;
  /** 患者ID without leading zeros, to compare with a stay's データ識別番号. */
  patientKey: string;
  /** Always the 10-digit form, check digit verified; a 7-digit code is completed with the prefecture. */
  institutionCode: string | null;
  institutionName: string | null;
  /** A code that could not be verified, as written; see InstitutionCodeProblem. */
  institutionCodeProblem: InstitutionCodeProblem | null;
  fromDepartment: string | null;
  fromDoctor: string | null;
  toDepartment: string | null;
  toDoctor: string | null;
  purpose: string | null;
  firstVisit: boolean | null;
  sourceId: string | null;
}

export interface ReverseReferralRecord {
  identity: string;
  reverseReferralDate: string;
  patientId: string;
  patientKey: string;
  institutionCode: string | null;
  institutionName: string | null;
  institutionCodeProblem: InstitutionCodeProblem | null;
  ownDepartment: string | null;
  sourceId: string | null;
}

/**
 * A 医療機関コード the row has but that could not be verified (a wrong check digit, a 7-digit code
 * without the tenant's prefecture, not 7 or 10 digits). The row is kept: the institution is matched by
 * the candidates or by name, else left unmatched (listed, matchable by hand) under the code as written.
 */
interface InstitutionCodeProblem {
  reason: string;
  written: string;
  /** 10-digit codes a 7-digit code may stand for (prefecture unknown); empty otherwise. */
  candidates: string[];
}

export interface ListParseOptions<C extends string> extends ListReadOptions<C> {
  /** JIS prefecture code used to verify 7-digit 医療機関コード (the hospital's own prefecture). */
  prefectureCode?: number | undefined;
}

function text(value: string): string | null {
  const s = value.normalize('NFKC').trim();
  return s === '' ? null : s;
}

/** Names enter an identity without width or spacing differences: ＡＢＣクリニック = ABC クリニック. */
function identityName(value: string | null): string {
  return (value ?? '').normalize('NFKC').replace(/\s/g, '');
}

const firstVisitValues: Record<string, boolean> = {
  '1': true,
  '0': false,
  初診: true,
  再診: false,
  有: true,
  無: false,
  あり: true,
  なし: false,
  はい: true,
  いいえ: false,
  '○': true,
  〇: true,
  '×': false,
  Y: true,
  N: false,
  TRUE: true,
  FALSE: false,
};

/** A list row's identity: its 管理番号 when it has one, else its key content (docs/referral-files.md). */
function listRowIdentity(
  kind: 'referral' | 'reverse_referral',
  sourceId: string | null,
  keys: { date: string; patientKey: string; institutionKey: string; department: string | null },
): string {
  return sourceId
    ? hashIdentity(kind, ['id', sourceId])
    : hashIdentity(kind, [keys.date, keys.patientKey, keys.institutionKey, identityName(keys.department)]);
}

type Common = {
  date: string;
  patientId: string;
  institutionCode: string | null;
  institutionName: string | null;
  institutionCodeProblem: InstitutionCodeProblem | null;
  /** What the row's institution part of its identity is: the verified code, else the name, else the code as written. */
  institutionKey: string;
};

function readCommon<C extends string>(
  row: MappedRow<C>,
  columns: { date: C; patient: C; code: C; name: C },
  prefectureCode: number | undefined,
): Common | string {
  if (row.width < row.requiredWidth)
    return `列数が${row.width}列です。対応付けた列には${row.requiredWidth}列が必要です`;
  const dateCell = row.get(columns.date);
  if (dateCell.trim() === '') return `${columns.date}がありません`;
  const date = parseListDate(dateCell);
  if (!date) return `${columns.date}「${dateCell}」を日付として読めません`;
  const patientId = text(row.get(columns.patient));
  if (!patientId) return `${columns.patient}がありません`;
  const codeCell = row.get(columns.code).trim();
  const institutionName = text(row.get(columns.name));
  let institutionCode: string | null = null;
  let institutionCodeProblem: InstitutionCodeProblem | null = null;
  if (codeCell !== '') {
    const code = parseInstitutionCode(codeCell, prefectureCode);
    if (code.ok) institutionCode = code.code;
    else institutionCodeProblem = { reason: code.reason, written: code.written, candidates: code.candidates };
  }
  if (!institutionCode && !institutionName && !institutionCodeProblem)
    return `${columns.code}または${columns.name}が必要です`;
  return {
    date,
    patientId,
    institutionCode,
    institutionName,
    institutionCodeProblem,
    institutionKey:
      institutionCode ?? (institutionName ? identityName(institutionName) : institutionCodeProblem!.written),
  };
}

/**
 * Streams a 紹介 list through a column mapping. Required: 紹介日, 患者ID, and 紹介元医療機関コード or
 * 紹介元医療機関名. A bad row is rejected with its number and the reason; the others are kept.
 */
export async function* parseReferralList(
  source: FileSource,
  options: ListParseOptions<ReferralColumn>,
): AsyncGenerator<Parsed<ReferralRecord>> {
  const gate = new KindGate<ReferralRecord>(
    'referral',
    '紹介日・患者ID・紹介元医療機関（コードまたは名称）のある行を想定しています',
  );
  const required = [['紹介日'], ['患者ID'], ['紹介元医療機関コード', '紹介元医療機関名']] as const;
  for await (const batch of readMappedList<ReferralColumn>(source, 'referral', required, options))
    for (const row of batch) {
      const common = readCommon(
        row,
        { date: '紹介日', patient: '患者ID', code: '紹介元医療機関コード', name: '紹介元医療機関名' },
        options.prefectureCode,
      );
      if (typeof common === 'string') {
        yield* gate.accept(rejected(row.rowNumber, common));
        continue;
      }
      const firstCell = row.get('初診').normalize('NFKC').trim().toUpperCase();
      let firstVisit: boolean | null = null;
      if (firstCell !== '') {
        const value = firstVisitValues[firstCell];
        if (value === undefined) {
          yield* gate.accept(
            rejected(row.rowNumber, `初診「${row.get('初診')}」は1（初診）または0（再診）で指定してください`),
          );
          continue;
        }
        firstVisit = value;
      }
      const sourceId = text(row.get('管理番号'));
      const patientKey = patientKeyOf(common.patientId);
      const toDepartment = text(row.get('紹介先診療科'));
      yield* gate.accept({
        kind: 'record',
        rowNumber: row.rowNumber,
        record: {
          identity: listRowIdentity('referral', sourceId, { ...common, patientKey, department: toDepartment }),
          referralDate: common.date,
          patientId: common.patientId,
          patientKey,
          institutionCode: common.institutionCode,
          institutionName: common.institutionName,
          institutionCodeProblem: common.institutionCodeProblem,
          fromDepartment: text(row.get('紹介元診療科')),
          fromDoctor: text(row.get('紹介元医師名')),
          toDepartment,
          toDoctor: text(row.get('紹介先医師名')),
          purpose: text(row.get('紹介目的')),
          firstVisit,
          sourceId,
        },
      });
    }
  gate.finish();
}

/** Streams a 逆紹介 list. Required: 逆紹介日, 患者ID, and 逆紹介先医療機関コード or 逆紹介先医療機関名. */
export async function* parseReverseReferralList(
  source: FileSource,
  options: ListParseOptions<ReverseReferralColumn>,
): AsyncGenerator<Parsed<ReverseReferralRecord>> {
  const gate = new KindGate<ReverseReferralRecord>(
    'reverse_referral',
    '逆紹介日・患者ID・逆紹介先医療機関（コードまたは名称）のある行を想定しています',
  );
  const required = [['逆紹介日'], ['患者ID'], ['逆紹介先医療機関コード', '逆紹介先医療機関名']] as const;
  for await (const batch of readMappedList<ReverseReferralColumn>(source, 'reverse_referral', required, options))
    for (const row of batch) {
      const common = readCommon(
        row,
        { date: '逆紹介日', patient: '患者ID', code: '逆紹介先医療機関コード', name: '逆紹介先医療機関名' },
        options.prefectureCode,
      );
      if (typeof common === 'string') {
        yield* gate.accept(rejected(row.rowNumber, common));
        continue;
      }
      const sourceId = text(row.get('管理番号'));
      const patientKey = patientKeyOf(common.patientId);
      const ownDepartment = text(row.get('自院診療科'));
      yield* gate.accept({
        kind: 'record',
        rowNumber: row.rowNumber,
        record: {
          identity: listRowIdentity('reverse_referral', sourceId, { ...common, patientKey, department: ownDepartment }),
          reverseReferralDate: common.date,
          patientId: common.patientId,
          patientKey,
          institutionCode: common.institutionCode,
          institutionName: common.institutionName,
          institutionCodeProblem: common.institutionCodeProblem,
          ownDepartment,
          sourceId,
        },
      });
    }
  gate.finish();
}
