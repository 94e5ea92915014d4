import { Readable } from 'node:stream';
import iconv from 'iconv-lite';
import type { Kysely } from 'kysely';
import type { CsvEncoding, Referral } from '@renkei/contracts';
import type { ReadModels } from '@renkei/read-models';
import { csvField } from '../medical-institutions/medical-institutions.export.ts';
import { institutionReferralRows, type ReferralFileColumns } from './referrals.queries.ts';

const batchSize = 500;

const referralExportHeader = [
  '紹介日',
  '患者ID',
  '紹介元診療科',
  '紹介先診療科',
  '紹介元医師',
  '紹介先医師',
  '紹介目的',
  '初診',
  '入院日',
  '退院日',
  '入院診療科',
  '傷病名',
  'ICD-10',
  'Kコード',
  '手術名',
  '手術日',
  'DPCコード',
  'MDC',
  '逆紹介日',
  '入力',
];

const firstVisitCell = (firstVisit: boolean | null) => (firstVisit === null ? '' : firstVisit ? '初診' : '再診');

/**
 * One line per stay that followed the referral; a referral no stay followed is one line with those cells
 * empty. The department is the own department's name, else the name the file gave (none of the own
 * departments): an export must not lose what the upload kept.
 */
function referralExportLines(r: Referral & { file: ReferralFileColumns }): string[][] {
  const common = [
    r.referral_date,
    r.patient_id,
    r.file.from_department ?? '',
    r.referral_department?.name ?? r.file.to_department ?? '',
    r.doctor_name_from ?? '',
    r.doctor_name_to ?? '',
    r.reason_for_presenting ?? '',
    firstVisitCell(r.file.first_visit),
  ];
  const tail = [r.reverse_referral?.reverse_referral_date ?? '', r.entered_by_hand ? '手入力' : '取込'];
  if (r.hospital_admissions.length === 0) return [[...common, ...Array<string>(10).fill(''), ...tail]];
  return r.hospital_admissions.map((a) => [
    ...common,
    a.admission_date,
    a.discharge_date ?? '',
    a.department ?? '',
    a.icd10_name ?? '',
    a.icd10_code ?? '',
    a.kcode ?? '',
    a.operation_name ?? '',
    a.operation_date ?? '',
    a.dpc_code ?? '',
    a.dpc_name ?? '',
    ...tail,
  ]);
}

/**
 * Every referral of the institution as CSV, in the list's order (newest first), a batch at a time so
 * memory does not grow with the institution's history. UTF-8 with a BOM, or Shift_JIS (cp932) for Excel.
 */
export function exportInstitutionReferrals(
  db: Kysely<ReadModels>,
  tenantId: string,
  institutionId: string,
  encoding: CsvEncoding,
): Readable {
  const encode = (text: string) => (encoding === 'shift_jis' ? iconv.encode(text, 'cp932') : Buffer.from(text, 'utf8'));
  const line = (cells: string[]) => cells.map(csvField).join(',') + '\r\n';
  async function* generate(): AsyncGenerator<Buffer> {
    yield encode((encoding === 'shift_jis' ? '' : '\ufeff') + line(referralExportHeader));
    for (let page = 1; ; page++) {
      const { data } = await institutionReferralRows(db, tenantId, institutionId, page, batchSize);
      if (data.length === 0) return;
      yield encode(data.flatMap(referralExportLines).map(line).join(''));
      if (data.length < batchSize) return;
    }
  }
  return Readable.from(generate());
}
