export { readTable, sniffEncoding, sniffDelimiter, encodeShiftJis, countTextLines } from './table-reader.ts';
export type { FileSource, TextEncoding, Delimiter, TableRow, TableFormat, TableReadOptions } from './table-reader.ts';
export { parseListDate, parseDpcDate } from './dates.ts';
export { parseInstitutionCode, type InstitutionCodeResult } from './institution-code.ts';
export { FileKindError, fileKindLabels, type ReferralFileKind } from './file-kind-error.ts';
export { patientKeyOf, kindSampleRows, type Parsed } from './parsed.ts';
export {
  referralColumns,
  reverseReferralColumns,
  suggestMapping,
  normalizeHeader,
  type ReferralColumn,
  type ReverseReferralColumn,
  type ListKind,
  type ListMapping,
} from './lists/list-columns.ts';
export { readListHeader, detectListHeader, type ListHeader } from './lists/list-file.ts';
export {
  parseReferralList,
  parseReverseReferralList,
  type ReferralRecord,
  type ReverseReferralRecord,
  type ListParseOptions,
} from './lists/referral-lists.ts';
export {
  stayKeyOf,
  stayJoinKeyOf,
  facilityCodeOfInstitutionCode,
  foreignFacilityReason,
  type FacilityScope,
} from './dpc/dpc-keys.ts';
export { parseFf1, ff1Columns, type Ff1Row, type Ff1ReadOptions } from './dpc/ff1.ts';
export { parseEf, isOperationKCode, type EfFact, type EfKind, type EfReadOptions } from './dpc/ef.ts';
export { parseDFile, type DpcFact, type DFileReadOptions } from './dpc/d-file.ts';
export { StayAssembler, type HospitalStay, type StayOperation } from './dpc/stay-assembler.ts';
export {
  generateDemoReferralFiles,
  demoReferrers,
  type DemoReferrer,
  type GenerateDemoReferralOptions,
  type DemoReferralFiles,
  type DemoReferralFile,
} from './demo/generate-demo-files.ts';
