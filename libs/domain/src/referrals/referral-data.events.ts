import { z } from 'zod';
import { eventParser } from '../event-union.ts';

/**
 * An upload of referral data (issue 12): stream `referral_data_import-<import id>`. The file is kept
 * unchanged under the data directory (`stored_path`), the source of truth for a replay; the worker
 * parses it in chunks and appends one facts event per chunk to this stream. A chunk event's id derives
 * from the import and the chunk number, and its records carry their identity (docs/referral-files.md),
 * so a resumed run appends nothing twice and a re-upload of the same rows updates instead of doubling.
 */
export const referralDataImportAggregate = 'referral_data_import';

/** Owners' saved column mappings of the two lists: stream `data_upload_mapping_profiles-<tenant id>`. */
export const mappingProfilesAggregate = 'data_upload_mapping_profiles';

export const ReferralDataImportType = z.enum([
  'referral',
  'reverse_referral',
  'ff1_file',
  'd_file',
  'outpatient_ef_file',
  'hospital_admission_ef_file',
]);
export type ReferralDataImportType = z.infer<typeof ReferralDataImportType>;

/** A list column as a mapping names it: the file's header name, or its 1-based position (a file without a header). */
const ListMappingTarget = z.union([z.string(), z.number().int().min(1)]);

export const ReferralDataImportRequested = z.object({
  import_id: z.uuid(),
  import_type: ReferralDataImportType,
  filename: z.string(),
  stored_path: z.string(),
  /** For the lists: canonical column → the file's header name or 1-based column position; null: matched by header names. */
  mapping: z.record(z.string(), ListMappingTarget).nullable(),
});
export type ReferralDataImportRequested = z.infer<typeof ReferralDataImportRequested>;

export const ReferralDataImportStarted = z.object({ import_id: z.uuid(), total_row_count: z.number().int() });

const RowError = z.object({ row_number: z.number().int().nullable(), message: z.string() });

/** What every chunk event carries besides its records (counts are the chunk's rows). */
const chunk = {
  import_id: z.uuid(),
  chunk: z.number().int(),
  imported_row_count: z.number().int(),
  failed_row_count: z.number().int(),
  errors: z.array(RowError),
  /**
   * True: the analysis rollups of the chunk's rows (and the re-link of its patients' stays) wait for
   * the import's ReferralDataImportRollupsRequested slices (or its end); the chunk only writes facts.
   * Absent (events written before, or by hand in tests and benches): recomputed with the chunk.
   */
  rollups_deferred: z.boolean().optional(),
};

const InstitutionRef = {
  /** Null when neither the code nor the normalised name matched the master: kept and listed. */
  medical_institution_id: z.uuid().nullable(),
  institution_code: z.string().nullable(),
  institution_name: z.string().nullable(),
};

export const ReferralFact = z.object({
  identity: z.string(),
  row_number: z.number().int(),
  referral_date: z.iso.date(),
  patient_id: z.string(),
  patient_key: z.string(),
  ...InstitutionRef,
  from_department: z.string().nullable(),
  from_doctor: z.string().nullable(),
  /** 紹介先診療科 as written; `own_department_id` when it names one of the tenant's own departments. */
  to_department: z.string().nullable(),
  own_department_id: z.uuid().nullable(),
  to_doctor: z.string().nullable(),
  purpose: z.string().nullable(),
  first_visit: z.boolean().nullable(),
  source_id: z.string().nullable(),
});
export type ReferralFact = z.infer<typeof ReferralFact>;

export const ReverseReferralFact = z.object({
  identity: z.string(),
  row_number: z.number().int(),
  reverse_referral_date: z.iso.date(),
  patient_id: z.string(),
  patient_key: z.string(),
  ...InstitutionRef,
  own_department: z.string().nullable(),
  own_department_id: z.uuid().nullable(),
  source_id: z.string().nullable(),
});
export type ReverseReferralFact = z.infer<typeof ReverseReferralFact>;

/** One stay (domain research §1.7), what referrals are joined to. */
export const HospitalAdmissionFact = z.object({
  /** 施設コード|データ識別番号 (no leading zeros)|入院年月日|回数管理番号. */
  identity: z.string(),
  patient_key: z.string(),
  admission_date: z.iso.date(),
  discharge_date: z.iso.date().nullable(),
  department_code: z.string().nullable(),
  icd10_code: z.string().nullable(),
  icd10_name: z.string().nullable(),
  kcode: z.string().nullable(),
  operation_name: z.string().nullable(),
  operation_date: z.iso.date().nullable(),
  anesthesia: z.string().nullable(),
  dpc_code: z.string().nullable(),
  dpc_name: z.string().nullable(),
  scores: z.record(z.string(), z.array(z.string())),
  admission_route_code: z.string().nullable(),
  referral_in: z.boolean().nullable(),
  discharge_destination_code: z.string().nullable(),
  discharge_outcome_code: z.string().nullable(),
});
export type HospitalAdmissionFact = z.infer<typeof HospitalAdmissionFact>;

/**
 * A chunk's referrals as one array per field, the i-th record's value at [i] of each: what the worker
 * writes (`referral_columns`). The field names are not repeated per record, so a 2,000-row chunk is
 * 0.35 MB of JSON instead of 0.85 MB and appends in about a third of the time (docs/benchmarks.md,
 * issue 12, 2026-11-25). Events written before carry `referrals`, one object per record.
 */
export const ReferralColumns = z.object({
  identity: z.array(ReferralFact.shape.identity),
  row_number: z.array(ReferralFact.shape.row_number),
  referral_date: z.array(ReferralFact.shape.referral_date),
  patient_id: z.array(ReferralFact.shape.patient_id),
  patient_key: z.array(ReferralFact.shape.patient_key),
  medical_institution_id: z.array(ReferralFact.shape.medical_institution_id),
  institution_code: z.array(ReferralFact.shape.institution_code),
  institution_name: z.array(ReferralFact.shape.institution_name),
  from_department: z.array(ReferralFact.shape.from_department),
  from_doctor: z.array(ReferralFact.shape.from_doctor),
  to_department: z.array(ReferralFact.shape.to_department),
  own_department_id: z.array(ReferralFact.shape.own_department_id),
  to_doctor: z.array(ReferralFact.shape.to_doctor),
  purpose: z.array(ReferralFact.shape.purpose),
  first_visit: z.array(ReferralFact.shape.first_visit),
  source_id: z.array(ReferralFact.shape.source_id),
});
export type ReferralColumns = z.infer<typeof ReferralColumns>;
const referralFields = Object.keys(ReferralColumns.shape) as (keyof ReferralFact)[];

export const ReferralsImported = z
  .object({ ...chunk, referrals: z.array(ReferralFact).optional(), referral_columns: ReferralColumns.optional() })
  .refine((d) => (d.referrals === undefined) !== (d.referral_columns === undefined), {
    message: 'a chunk carries its referrals either as records or as columns',
  })
  .refine(
    (d) =>
      d.referral_columns === undefined ||
      referralFields.every((f) => d.referral_columns!.identity.length === d.referral_columns![f].length),
    { message: 'every column of a chunk has one value per referral' },
  );
export type ReferralsImported = z.infer<typeof ReferralsImported>;

/** The columns of `referrals` (ReferralColumns). */
export function referralColumnsOf(referrals: readonly ReferralFact[]): ReferralColumns {
  return Object.fromEntries(referralFields.map((f) => [f, referrals.map((r) => r[f])])) as ReferralColumns;
}

/** A chunk's referrals as records, whichever form the event carries them in. */
export function referralsOfChunk(data: ReferralsImported): ReferralFact[] {
  const columns = data.referral_columns;
  if (!columns) return data.referrals ?? [];
  const out: ReferralFact[] = new Array<ReferralFact>(columns.identity.length);
  for (let i = 0; i < out.length; i++) {
    const record: Record<string, unknown> = {};
    for (const f of referralFields) record[f] = columns[f][i];
    out[i] = record as ReferralFact;
  }
  return out;
}
export const ReverseReferralsImported = z.object({ ...chunk, reverse_referrals: z.array(ReverseReferralFact) });
export type ReverseReferralsImported = z.infer<typeof ReverseReferralsImported>;
export const HospitalAdmissionsImported = z.object({ ...chunk, admissions: z.array(HospitalAdmissionFact) });
export type HospitalAdmissionsImported = z.infer<typeof HospitalAdmissionsImported>;

/**
 * What a D or EF file adds to the stays FF1 builds (docs/decisions.md, "D and EF files"). D and EF carry
 * no 回数管理番号: their facts are keyed by 施設コード + データ識別番号 (no leading zeros) + 入院年月日 and
 * attach to the stay of that day with the lowest 回数管理番号, whenever its FF1 arrives.
 */
const StayKey = {
  facility_code: z.string(),
  patient_key: z.string(),
  admission_date: z.iso.date(),
};

/** A stay as a claim file (D or inpatient EF) names it: dates, department, and (D only) the DPC code. */
export const StayClaimFact = z.object({
  ...StayKey,
  source: z.enum(['d', 'ef']),
  discharge_date: z.iso.date().nullable(),
  department_code: z.string().nullable(),
  /** D 分類番号 (14 characters) and the end of the 算定 period it was billed for: the latest wins. */
  dpc_code: z.string().nullable(),
  dpc_period_end: z.iso.date().nullable(),
});
export type StayClaimFact = z.infer<typeof StayClaimFact>;

/** An inpatient EF operation (データ区分 50, K000–K915) or anesthesia (データ区分 54, L…): one per day and code. */
export const StayProcedureFact = z.object({
  ...StayKey,
  /** join key|kind|実施年月日|code: the same item re-exported (renumbered or not) is the same fact. */
  identity: z.string(),
  kind: z.enum(['operation', 'anesthesia']),
  date: z.iso.date().nullable(),
  code: z.string(),
  name: z.string(),
});
export type StayProcedureFact = z.infer<typeof StayProcedureFact>;

/** One outpatient day of a patient (外来EF): the 受診 the referral list's 初診 can be checked against. */
export const OutpatientVisitFact = z.object({
  facility_code: z.string(),
  patient_key: z.string(),
  visit_date: z.iso.date(),
  department_code: z.string().nullable(),
});
export type OutpatientVisitFact = z.infer<typeof OutpatientVisitFact>;

export const DpcFactsImported = z.object({
  ...chunk,
  stays: z.array(StayClaimFact),
  procedures: z.array(StayProcedureFact),
  visits: z.array(OutpatientVisitFact),
});
export type DpcFactsImported = z.infer<typeof DpcFactsImported>;

/**
 * One slice of the rollups an import deferred (docs/decisions.md, "Referral import rollups once per
 * import"): phase `link` re-links the stays of the import's patients whose key hashes to `bucket` (of
 * `buckets`); phase `rollup` recomputes the institution-months hashing to `bucket`. The worker appends
 * every link slice, then every rollup slice, each after the referrals projection applied the one
 * before, then the import's end: the rollups hold the import's rows when its record says completed.
 */
export const ReferralDataImportRollupsRequested = z.object({
  import_id: z.uuid(),
  phase: z.enum(['link', 'rollup']),
  bucket: z.number().int().min(0),
  buckets: z.number().int().min(1),
});
export type ReferralDataImportRollupsRequested = z.infer<typeof ReferralDataImportRollupsRequested>;

export const ReferralDataImportFinished = z.object({
  import_id: z.uuid(),
  status: z.enum(['completed', 'failed']),
  imported_row_count: z.number().int(),
  failed_row_count: z.number().int(),
  unprocessed_row_count: z.number().int(),
  abortion_row_number: z.number().int().nullable(),
  /** The file-level problem, when it failed. */
  error: RowError.nullable(),
});
export type ReferralDataImportFinished = z.infer<typeof ReferralDataImportFinished>;

export const referralDataImportEventSchemas = {
  ReferralDataImportRequested,
  ReferralDataImportStarted,
  ReferralsImported,
  ReverseReferralsImported,
  HospitalAdmissionsImported,
  DpcFactsImported,
  ReferralDataImportRollupsRequested,
  ReferralDataImportFinished,
} as const;

/** A stored event of a referral-data import stream as its typed union; anything else throws. */
export const parseReferralDataImportEvent = eventParser(referralDataImportAggregate, referralDataImportEventSchemas);

export const MappingProfileData = z.object({
  id: z.uuid(),
  import_type: z.enum(['referral', 'reverse_referral']),
  name: z.string(),
  mapping: z.record(z.string(), ListMappingTarget),
});
export type MappingProfileData = z.infer<typeof MappingProfileData>;

export const MappingProfilesReplaced = z.object({ profiles: z.array(MappingProfileData) });

export const mappingProfileEventSchemas = { MappingProfilesReplaced } as const;

export const parseMappingProfileEvent = eventParser(mappingProfilesAggregate, mappingProfileEventSchemas);

/**
 * Owners' hand matches of institutions the lists name but the master did not match: stream
 * `referral_institution_matches-<tenant id>`. The referrals projection re-attributes the rows already
 * imported with that code and name, and attributes later rows the same way.
 */
export const institutionMatchesAggregate = 'referral_institution_matches';

export const ReferralInstitutionMatched = z.object({
  institution_code: z.string().nullable(),
  institution_name: z.string().nullable(),
  medical_institution_id: z.uuid(),
});
export type ReferralInstitutionMatched = z.infer<typeof ReferralInstitutionMatched>;

export const institutionMatchEventSchemas = { ReferralInstitutionMatched } as const;

export const parseInstitutionMatchEvent = eventParser(institutionMatchesAggregate, institutionMatchEventSchemas);

/**
 * Owners' decisions not to match a (code, name) the lists name — 「不明」, a patient's own doctor, a
 * closed clinic the master no longer holds — so it leaves the to-do list of unmatched institutions:
 * stream `referral_institution_dismissals-<tenant id>`. The rows stay as they are (counted under no
 * institution); a later hand match still moves them.
 */
export const institutionDismissalsAggregate = 'referral_institution_dismissals';

const DismissedInstitution = z.object({
  institution_code: z.string().nullable(),
  institution_name: z.string().nullable(),
});
export const UnmatchedInstitutionDismissed = DismissedInstitution;
export const UnmatchedInstitutionRestored = DismissedInstitution;
export type UnmatchedInstitutionDismissed = z.infer<typeof UnmatchedInstitutionDismissed>;

export const institutionDismissalEventSchemas = {
  UnmatchedInstitutionDismissed,
  UnmatchedInstitutionRestored,
} as const;

export const parseInstitutionDismissalEvent = eventParser(
  institutionDismissalsAggregate,
  institutionDismissalEventSchemas,
);

/**
 * A referral or reverse referral entered by hand on an institution's referral page: stream
 * `referral_entry-<referral id>`. Its fact is shaped as an imported one (identity `manual:<id>`), so it
 * lands in the same rows and rollups.
 */
export const referralEntryAggregate = 'referral_entry';

export const ReferralEntered = z.object({ referral_id: z.uuid(), referral: ReferralFact });
export const ReverseReferralEntered = z.object({
  reverse_referral_id: z.uuid(),
  reverse_referral: ReverseReferralFact,
});

/** A hand entry corrected (the whole fact again, same identity) or withdrawn; imported rows have neither. */
export const ReferralEntryUpdated = z.object({ referral_id: z.uuid(), referral: ReferralFact });
export const ReferralEntryDeleted = z.object({ referral_id: z.uuid() });
export const ReverseReferralEntryUpdated = z.object({
  reverse_referral_id: z.uuid(),
  reverse_referral: ReverseReferralFact,
});
export const ReverseReferralEntryDeleted = z.object({ reverse_referral_id: z.uuid() });

export const referralEntryEventSchemas = {
  ReferralEntered,
  ReverseReferralEntered,
  ReferralEntryUpdated,
  ReferralEntryDeleted,
  ReverseReferralEntryUpdated,
  ReverseReferralEntryDeleted,
} as const;

export const parseReferralEntryEvent = eventParser(referralEntryAggregate, referralEntryEventSchemas);

/**
 * An owner's withdrawal of an upload: stream `referral_data_withdrawal-<import id>`, apart from the
 * import's own stream (which the worker writes and which holds every chunk of the file). The request
 * marks the import record as being withdrawn; the worker then appends the slices that take its rows back, each
 * after the referrals projection applied the one before (docs/decisions.md, "Withdrawing an upload").
 */
export const referralDataWithdrawalAggregate = 'referral_data_withdrawal';

export const ReferralDataImportWithdrawalRequested = z.object({
  import_id: z.uuid(),
  import_type: ReferralDataImportType,
});
export type ReferralDataImportWithdrawalRequested = z.infer<typeof ReferralDataImportWithdrawalRequested>;

/**
 * One slice of a withdrawal (`bucket` of `buckets`): up to `rows` rows of each kind that the upload
 * last wrote go, unless another upload still holds them (those become that upload's); the patients and
 * months they leave are noted for the withdrawal's re-link and rollup slices. Which rows a slice takes
 * does not matter: each row's fate depends on the uploads that hold it alone, and the end takes any left.
 */
export const ReferralDataImportWithdrawn = z.object({
  import_id: z.uuid(),
  bucket: z.number().int().min(0),
  buckets: z.number().int().min(1),
  rows: z.number().int().min(1),
});
export type ReferralDataImportWithdrawn = z.infer<typeof ReferralDataImportWithdrawn>;

/**
 * The withdrawal's end: whatever its re-link and rollup slices (`ReferralDataImportRollupsRequested`
 * on the same stream, as an import's) left is done, and the figures no longer count its rows.
 */
export const ReferralDataImportWithdrawalCompleted = z.object({ import_id: z.uuid() });
export type ReferralDataImportWithdrawalCompleted = z.infer<typeof ReferralDataImportWithdrawalCompleted>;

export const referralDataWithdrawalEventSchemas = {
  ReferralDataImportWithdrawalRequested,
  ReferralDataImportWithdrawn,
  ReferralDataImportRollupsRequested,
  ReferralDataImportWithdrawalCompleted,
} as const;

export const parseReferralDataWithdrawalEvent = eventParser(
  referralDataWithdrawalAggregate,
  referralDataWithdrawalEventSchemas,
);
