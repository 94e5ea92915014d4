import { sql } from 'kysely';
import { MappedListType } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import {
  parseReferralDataImportEvent,
  referralColumnsOf,
  ownDepartmentNameKey,
  referralDataImportAggregate,
  uuidV5,
  type HospitalAdmissionFact,
  type OutpatientVisitFact,
  type ReferralDataImportRequested,
  type StayClaimFact,
  type StayProcedureFact,
  type ReferralFact,
  type ReverseReferralFact,
} from '@renkei/domain';
import { streamId, type EventStore, type RecordedEvent } from '@renkei/event-store';
import { waitForPosition } from '@renkei/projections';
import {
  countTextLines,
  facilityCodeOfInstitutionCode,
  FileKindError,
  patientKeyOf,
  parseDFile,
  parseEf,
  parseFf1,
  parseReferralList,
  parseReverseReferralList,
  readListHeader,
  StayAssembler,
  suggestMapping,
  type DpcFact,
  type EfFact,
  type HospitalStay,
  type Parsed,
  type ReferralRecord,
  type ReverseReferralRecord,
} from '@renkei/referral-files';
import { medicalInstitutionCrmProjection, referralsProjection } from '@renkei/read-models';
import { jstDay } from '../japan-time.ts';
import { ImportNotReadyError, type ImportRunControl } from './import-queue.ts';
import { createImportReactor, importJournal, ImportRun, type ImportJournal } from './import-runner.ts';

/**
 * Rows per chunk event of the two lists: progress is recorded after each, and each commits on its
 * own. A chunk only writes facts (its rollups wait for the import's slices), so a larger one costs
 * the referrals projection little more than a smaller one and saves a round of matching and appends.
 */
const listChunkSize = 2000;
/** What the lists' chunks held before (a run resumed from such chunks keeps it). */
const legacyListChunkSize = 500;
/** Stays, or D/EF facts, per chunk event of the DPC files. */
const chunkSize = 500;
/** About this many rows per slice of an import's deferred rollups, in at most `maxRollupSlices` slices. */
const rowsPerRollupSlice = 20_000;
const maxRollupSlices = 256;
/** How long a slice waits for the referrals projection before the run is tried again (it resumes there). */
const sliceWaitMs = 120_000;
/** Row errors one chunk event carries at most (a file of nothing but bad rows stays readable). */
const maxErrorsPerChunk = 500;
// Namespace of this reactor's event ids (uuidV5); an id derived once must keep it forever.
const eventIdNamespace = '6d1f3c4e2b8a4f0e9c7d5a3b1e2f4a6c';

/** Every event the run appends has an id derived from the import and its place in it: a rerun appends nothing twice. */
const eventId = (importId: string, ...parts: (string | number)[]) =>
  uuidV5(eventIdNamespace, [importId, ...parts].join('\u0000'));

/**
 * Names are compared without width, spacing, ヶ/ケ and the legal-form prefix the master often has and
 * a referral list often drops (医療法人社団 …). Postgres normalises the master's side the same way.
 */
const corporatePrefix =
  '^(医療法人社団|医療法人財団|特定医療法人|社会医療法人|医療法人|一般財団法人|公益財団法人|一般社団法人|公益社団法人|社会福祉法人|独立行政法人)';
function normalizeInstitutionName(name: string): string {
  return name
    .normalize('NFKC')
    .replace(/\s/g, '')
    .replace(/[ヶヵ]/g, 'ケ')
    .replace(new RegExp(corporatePrefix), '');
}

interface TenantFacts {
  prefectureCode: number | undefined;
  /** The own hospital's municipality in the master: the nearest of several namesakes is preferred. */
  city: string | undefined;
  ownDepartments: Map<string, string>;
  /** 施設コード of the tenant's own hospital and its group: DPC rows of any other are refused. Empty: no own hospital set. */
  facilityCodes: Set<string>;
}

/**
 * No tenant settings read model in this database (a worker without the tenant-settings projection):
 * no own hospital, so no scope. Any other error (a lost connection, a changed column) is thrown, so the
 * job is retried instead of importing DPC rows of every facility unchecked.
 */
function whenSettingsMissing<R>(error: unknown): { rows: R[] } {
  if ((error as { code?: string }).code === '42P01') return { rows: [] };
  throw error;
}

async function loadTenantFacts(db: Database, requested: RecordedEvent): Promise<TenantFacts> {
  // Own departments come from the CRM read model: wait until it has seen everything before the upload.
  const reached = await waitForPosition(db, [medicalInstitutionCrmProjection.name], requested.position, 30_000);
  if (!reached) throw new ImportNotReadyError('referral data import: own departments read model behind the upload');
  const tenantId = requested.metadata.tenant_id;
  const departments = await sql<{ id: string; name: string }>`
    SELECT id, name FROM rm.own_departments WHERE tenant_id = ${tenantId}`.execute(db.kysely);
  const own = await sql<{ prefecture_code: number | null; city: string }>`
    SELECT m.prefecture_code, m.city FROM rm.tenant_settings s JOIN ref.medical_institutions m ON m.id::text = s.medical_institution_id
     WHERE s.tenant_id = ${tenantId}`
    .execute(db.kysely)
    .catch(whenSettingsMissing<{ prefecture_code: number | null; city: string }>);
  const scope = await sql<{ code: string | null }>`
    SELECT m.code FROM rm.tenant_settings s JOIN ref.medical_institutions m
        ON m.id::text = s.medical_institution_id OR m.id = ANY(s.group_medical_institution_ids)
     WHERE s.tenant_id = ${tenantId} AND s.medical_institution_id IS NOT NULL`
    .execute(db.kysely)
    .catch(whenSettingsMissing<{ code: string | null }>);
  return {
    prefectureCode: own.rows[0]?.prefecture_code ?? undefined,
    city: own.rows[0]?.city || undefined,
    ownDepartments: new Map(departments.rows.map((d) => [ownDepartmentNameKey(d.name), d.id])),
    facilityCodes: new Set(
      scope.rows.map((r) => (r.code ? facilityCodeOfInstitutionCode(r.code) : null)).filter((c) => c !== null),
    ),
  };
}

/** What a list row says of its institution. */
interface InstitutionRef {
  /** A verified 10-digit 医療機関コード. */
  code: string | null;
  /** The 10-digit codes an unverifiable 7-digit code may stand for (the tenant's prefecture unknown). */
  candidates: readonly string[];
  name: string | null;
  /** The prefecture an unverified 10-digit code names (its first two digits): preferred among namesakes. */
  prefectureHint: number | undefined;
}

/** How a row's institution was matched: by its code (or one of its candidates), by its name, or not at all. */
interface InstitutionMatch {
  id: string | null;
  by: 'code' | 'name' | null;
  /** The master's code a 7-digit code stood for: the candidate matched by code, or the namesake's among the candidates. */
  code: string | null;
}

interface Namesake {
  id: string;
  code: string;
  prefecture_code: number | null;
  city: string;
}

/**
 * Among institutions of one normalised name: those a 7-digit code may stand for, then those of the
 * prefecture the row's code names or else the tenant's, then those of the tenant's municipality. Each
 * step narrows only when something is left; a match needs exactly one at the end.
 */
function pickNamesake(found: readonly Namesake[], ref: InstitutionRef, home: TenantFacts): Namesake | null {
  if (found.length <= 1) return found[0] ?? null;
  const narrow = (list: readonly Namesake[], keep: (n: Namesake) => boolean) => {
    const kept = list.filter(keep);
    return kept.length > 0 ? kept : list;
  };
  let list = found;
  if (ref.candidates.length > 0) list = narrow(list, (n) => ref.candidates.includes(n.code));
  const prefecture = ref.prefectureHint ?? home.prefectureCode;
  if (prefecture !== undefined) list = narrow(list, (n) => n.prefecture_code === prefecture);
  if (home.city !== undefined && home.prefectureCode !== undefined)
    list = narrow(list, (n) => n.prefecture_code === home.prefectureCode && n.city === home.city);
  return list.length === 1 ? list[0]! : null;
}

/**
 * Institution ids by 医療機関コード (or the single candidate of a 7-digit code the master holds), then by
 * normalised name (namesakes told apart by prefecture and municipality, pickNamesake); remembered for the run.
 */
function institutionMatcher(db: Database, home: TenantFacts) {
  const byCode = new Map<string, string | null>();
  const byName = new Map<string, Namesake[]>();
  const codeMatch = (ref: InstitutionRef): { id: string; code: string } | null => {
    const direct = ref.code ? byCode.get(ref.code) : null;
    if (direct) return { id: direct, code: ref.code! };
    const held = ref.candidates.flatMap((c) => {
      const id = byCode.get(c);
      return id ? [{ id, code: c }] : [];
    });
    return held.length === 1 ? held[0]! : null;
  };
  return async (refs: readonly InstitutionRef[]) => {
    const codes = [
      ...new Set(refs.flatMap((r) => [...(r.code ? [r.code] : []), ...r.candidates].filter((c) => !byCode.has(c)))),
    ];
    if (codes.length > 0) {
      const { rows } = await sql<{ code: string; id: string }>`
        SELECT code, id FROM ref.medical_institutions WHERE code = ANY(${sql.val(codes)}::text[])`.execute(db.kysely);
      for (const c of codes) byCode.set(c, null);
      for (const r of rows) byCode.set(r.code, r.id);
    }
    const unmatchedNames = [
      ...new Set(
        refs.flatMap((r) =>
          !codeMatch(r) && r.name && !byName.has(normalizeInstitutionName(r.name))
            ? [normalizeInstitutionName(r.name)]
            : [],
        ),
      ),
    ];
    if (unmatchedNames.length > 0) {
      const { rows } = await sql<Namesake & { key: string }>`
        SELECT key, id::text AS id, code, prefecture_code, city FROM (
          SELECT id, code, prefecture_code, city,
                 regexp_replace(translate(regexp_replace(normalize(name, NFKC), '\\s', '', 'g'), 'ヶヵ', 'ケケ'), ${corporatePrefix}, '') AS key
            FROM ref.medical_institutions) m
         WHERE key = ANY(${sql.val(unmatchedNames)}::text[])`.execute(db.kysely);
      for (const n of unmatchedNames) byName.set(n, []);
      for (const { key, ...namesake } of rows) byName.get(key)?.push(namesake);
    }
    return (ref: InstitutionRef): InstitutionMatch => {
      const byCodeMatch = codeMatch(ref);
      if (byCodeMatch) return { id: byCodeMatch.id, by: 'code', code: byCodeMatch.code };
      const namesake = ref.name ? pickNamesake(byName.get(normalizeInstitutionName(ref.name)) ?? [], ref, home) : null;
      // Found by name, yet one of the codes a 7-digit code may stand for: that code is the row's after all.
      const code = namesake && ref.candidates.includes(namesake.code) ? namesake.code : null;
      return { id: namesake?.id ?? null, by: namesake ? 'name' : null, code };
    };
  };
}

type ListRecord = ReferralRecord | ReverseReferralRecord;

/** What the matcher is asked of a list row. */
function institutionRefOf(r: ListRecord): InstitutionRef {
  const problem = r.institutionCodeProblem;
  const hint = problem && /^\d{10}$/.test(problem.written) ? Number(problem.written.slice(0, 2)) : undefined;
  return {
    code: r.institutionCode,
    candidates: problem?.candidates ?? [],
    name: r.institutionName,
    prefectureHint: hint !== undefined && hint >= 1 && hint <= 47 ? hint : undefined,
  };
}

/** The code a fact keeps: the verified one, the master's code a 7-digit code stood for, else the code as written. */
function factCode(r: ListRecord, match: InstitutionMatch): string | null {
  return r.institutionCode ?? match.code ?? r.institutionCodeProblem?.written ?? null;
}

/**
 * A row kept although its 医療機関コード could not be verified: a warning on the import record (not a
 * failed row) saying how its institution was found, or that it is left for a hand match.
 */
function codeWarning(rowNumber: number, r: ListRecord, match: InstitutionMatch): RowError | null {
  const problem = r.institutionCodeProblem;
  if (!problem || match.by === 'code') return null;
  const outcome =
    match.by === 'name'
      ? `医療機関名「${r.institutionName}」で照合しました`
      : '医療機関を照合できなかったため、未照合として取り込みました（「照合できなかった医療機関」で医療機関を選べます）';
  return { row_number: rowNumber, message: `${rowNumber}行目: （警告）${problem.reason}。${outcome}` };
}

/**
 * A row dated after the day the file was uploaded (Japan): kept, since a list may carry a planned date,
 * but most are a year typed wrong (R8 for R6, 2062 for 2026), which would hide the referral in a month
 * to come, so the import record says so. Dated against the upload, not the run: a resumed run says the same.
 */
function futureDateWarning(rowNumber: number, r: ListRecord, uploadDay: string): RowError | null {
  const [label, date] = 'referralDate' in r ? ['紹介日', r.referralDate] : ['逆紹介日', r.reverseReferralDate];
  if (date <= uploadDay) return null;
  const slashed = (d: string) => d.replaceAll('-', '/');
  return {
    row_number: rowNumber,
    message: `${rowNumber}行目: （警告）${label}「${slashed(date)}」がアップロードした日（${slashed(uploadDay)}）より後です。行は取り込みましたが、その月になるまで実績に表れません。日付に誤りがないか確認してください`,
  };
}

type RowError = { row_number: number | null; message: string };

type ChunkCounts = { imported_row_count: number; failed_row_count: number };

function admissionFact(stay: HospitalStay): HospitalAdmissionFact {
  return {
    identity: stay.identity,
    patient_key: stay.patientKey,
    admission_date: stay.admissionDate,
    discharge_date: stay.dischargeDate,
    department_code: stay.departmentCode,
    icd10_code: stay.icd10Code,
    icd10_name: stay.diseaseName,
    kcode: stay.kcode,
    operation_name: stay.operationName,
    operation_date: stay.operationDate,
    anesthesia: stay.anesthesia ? (stay.anesthesia.name ?? stay.anesthesia.code) : null,
    dpc_code: stay.dpcCode,
    dpc_name: stay.dpcName,
    scores: stay.scores,
    admission_route_code: stay.admissionRoute,
    referral_in: stay.referralIn,
    discharge_destination_code: stay.dischargeDestination,
    discharge_outcome_code: stay.outcome,
  };
}

/**
 * Runs one upload: the file is parsed streamed (libs/referral-files), in chunks; each chunk becomes
 * one facts event on the import's stream (`ReferralsImported`, `ReverseReferralsImported`,
 * `HospitalAdmissionsImported`) carrying its records with their identities, its row counts and its
 * row-numbered errors. Institutions are matched here (code, then normalised name, institutionMatcher;
 * unmatched rows, and rows whose code cannot be verified, are kept with a null id), own departments by name. Chunks already recorded are skipped, so a run cut
 * short anywhere resumes without a duplicate. The file being of the wrong kind stops the run at once.
 */
export async function runReferralDataImport(
  db: Database,
  store: EventStore,
  requested: RecordedEvent,
  control?: ImportRunControl,
): Promise<void> {
  // A run resumed from chunks a worker before v8 recorded (500 rows, rollups not deferred) keeps their size:
  // chunks are skipped by number, so another size would skip other rows.
  let legacyChunks = false;
  const journal: ImportJournal<ReferralDataImportRequested> = {
    ...referralDataImportJournal,
    read(event) {
      const read = referralDataImportJournal.read(event);
      if (read.chunk && (event.data as { rollups_deferred?: boolean }).rollups_deferred !== true) legacyChunks = true;
      return read;
    },
  };
  const run = await ImportRun.open(store, requested, journal, { control });
  if (!run) return;
  const listChunkRows = legacyChunks ? legacyListChunkSize : listChunkSize;
  const data = run.request;

  const facts = await loadTenantFacts(db, requested);
  const match = institutionMatcher(db, facts);
  // A UTF-16 list has a byte 0x0A in many a character: its lines are counted as text (progress, total).
  const lines = await countTextLines(data.stored_path);

  /** Records one chunk's event unless an earlier run did (import-runner.ts); `build` runs only when it is needed. */
  const emitChunk = (
    type: string,
    counts: ChunkCounts & { errors: RowError[] },
    build: () => Promise<{ data: Record<string, unknown>; warnings?: RowError[] }>,
  ) =>
    run.chunk(async () => {
      const built = await build();
      return {
        type,
        imported: counts.imported_row_count,
        failed: counts.failed_row_count,
        // Refused rows first, then the warnings of rows kept: a chunk's list is capped.
        errors: [...counts.errors, ...(built.warnings ?? [])].slice(0, maxErrorsPerChunk),
        // The referrals projection notes what the chunk touched; the slices below bring the rollups up to date.
        data: { ...built.data, rollups_deferred: true },
      };
    });

  /**
   * The rollups the chunks deferred, in slices: every `link` slice, then every `rollup` slice, each
   * appended after the referrals projection applied the one before, so no transaction of the
   * projection holds more than a slice's share of the import. Their ids derive from the import, the
   * phase, the bucket and the number of buckets (the imported rows, the same on every run): a rerun
   * appends nothing twice and waits where the last run stopped.
   */
  const deferredRollups = async () => {
    const buckets = Math.min(maxRollupSlices, Math.max(1, Math.ceil(run.imported / rowsPerRollupSlice)));
    for (const phase of ['link', 'rollup'] as const)
      for (let bucket = 0; bucket < buckets; bucket++) {
        const appended = await store.append(
          streamId(referralDataImportAggregate, run.importId),
          [
            {
              id: eventId(run.importId, 'rollups', phase, buckets, bucket),
              type: 'ReferralDataImportRollupsRequested',
              data: { import_id: run.importId, phase, bucket, buckets },
              metadata: run.metadata,
            },
          ],
          { expectedRevision: 'any' },
        );
        if (!(await waitForPosition(db, [referralsProjection.name], appended.position, sliceWaitMs, control?.signal)))
          throw new ImportNotReadyError(
            `referral data import: the referrals projection did not reach slice ${phase} ${bucket}`,
          );
      }
  };

  const inChunks = async <T>(
    items: AsyncIterable<Parsed<T>>,
    type: string,
    build: (
      records: { rowNumber: number; record: T }[],
    ) => Promise<{ data: Record<string, unknown>; warnings?: RowError[] }>,
  ) => {
    let held: Parsed<T>[] = [];
    const flush = async () => {
      const records = held.flatMap((p) => (p.kind === 'record' ? [{ rowNumber: p.rowNumber, record: p.record }] : []));
      const errors = held.flatMap((p) =>
        p.kind === 'rejected' ? [{ row_number: p.rowNumber, message: `${p.rowNumber}行目: ${p.reason}` }] : [],
      );
      held = [];
      await emitChunk(type, { imported_row_count: records.length, failed_row_count: errors.length, errors }, () =>
        build(records),
      );
    };
    for await (const item of items) {
      held.push(item);
      if (held.length >= listChunkRows) await flush();
    }
    if (held.length > 0) await flush();
  };

  // A list's header row is no data row: the import record's total counts data rows only.
  const listHeader = MappedListType.safeParse(data.import_type).success
    ? await readListHeader(data.stored_path).catch(() => null)
    : null;
  await run.start(Math.max(lines - (listHeader?.hasHeader ? 1 : 0), 0));
  try {
    switch (data.import_type) {
      case 'referral':
      case 'reverse_referral': {
        // Read again here when it failed above: its error then fails the run as any other.
        const header = listHeader ?? (await readListHeader(data.stored_path));
        run.total = Math.max(lines - (header.hasHeader ? 1 : 0), 0);
        // A file without a header can only be read through a mapping by column position (the mapping step's 1列目, 2列目 …).
        if (!data.mapping && !header.hasHeader && header.rows.length > 0)
          throw new FileKindError(
            data.import_type,
            '見出し行（1行目の列名）がありません。列の対応付けで「1列目」「2列目」…を取り込む項目に対応付けてからアップロードしてください',
          );
        const mapping =
          data.mapping ?? (header.headerNames ? suggestMapping(header.headerNames, data.import_type) : {});
        const options = { mapping, hasHeader: header.hasHeader, prefectureCode: facts.prefectureCode };
        const uploadDay = jstDay(requested.created_at);
        const department = (name: string | null) =>
          name ? (facts.ownDepartments.get(ownDepartmentNameKey(name)) ?? null) : null;
        /**
         * Matches a chunk's institutions: each row's match, and the warnings of rows kept with an unverified
         * code or a date to come.
         */
        const matchRows = async (rows: { rowNumber: number; record: ListRecord }[]) => {
          const resolve = await match(rows.map((r) => institutionRefOf(r.record)));
          const matches = rows.map((r) => resolve(institutionRefOf(r.record)));
          const warnings = rows
            .flatMap((r, i) => [
              codeWarning(r.rowNumber, r.record, matches[i]!),
              futureDateWarning(r.rowNumber, r.record, uploadDay),
            ])
            .filter((w): w is RowError => w !== null);
          return { matches, warnings };
        };
        if (data.import_type === 'referral')
          await inChunks<ReferralRecord>(
            parseReferralList(data.stored_path, options),
            'ReferralsImported',
            async (rows) => {
              const { matches, warnings } = await matchRows(rows);
              const referrals: ReferralFact[] = rows.map(({ rowNumber, record: r }, i) => ({
                identity: r.identity,
                row_number: rowNumber,
                referral_date: r.referralDate,
                patient_id: r.patientId,
                patient_key: r.patientKey,
                medical_institution_id: matches[i]!.id,
                institution_code: factCode(r, matches[i]!),
                institution_name: r.institutionName,
                from_department: r.fromDepartment,
                from_doctor: r.fromDoctor,
                to_department: r.toDepartment,
                own_department_id: department(r.toDepartment),
                to_doctor: r.toDoctor,
                purpose: r.purpose,
                first_visit: r.firstVisit,
                source_id: r.sourceId,
              }));
              return { data: { referral_columns: referralColumnsOf(referrals) }, warnings };
            },
          );
        else
          await inChunks<ReverseReferralRecord>(
            parseReverseReferralList(data.stored_path, options),
            'ReverseReferralsImported',
            async (rows) => {
              const { matches, warnings } = await matchRows(rows);
              const reverse: ReverseReferralFact[] = rows.map(({ rowNumber, record: r }, i) => ({
                identity: r.identity,
                row_number: rowNumber,
                reverse_referral_date: r.reverseReferralDate,
                patient_id: r.patientId,
                patient_key: r.patientKey,
                medical_institution_id: matches[i]!.id,
                institution_code: factCode(r, matches[i]!),
                institution_name: r.institutionName,
                own_department: r.ownDepartment,
                own_department_id: department(r.ownDepartment),
                source_id: r.sourceId,
              }));
              return { data: { reverse_referrals: reverse }, warnings };
            },
          );
        break;
      }
      case 'ff1_file': {
        // Stays need every row of the file first (one stay spans many rows); the assembler holds one entry per stay.
        const assembler = new StayAssembler();
        const errors: { row_number: number; message: string }[] = [];
        let rows = 0;
        // A wide (FL00001) file has no 施設コード column: its rows are the tenant's own hospital's when that is
        // the only facility it has (with group hospitals, which one is unknown, and such rows are refused).
        const facilityCode = facts.facilityCodes.size === 1 ? [...facts.facilityCodes][0] : undefined;
        for await (const item of parseFf1(data.stored_path, { facilityCodes: facts.facilityCodes, facilityCode })) {
          if (item.kind === 'record') {
            rows++;
            assembler.addFf1(item.record);
          } else errors.push({ row_number: item.rowNumber, message: `${item.rowNumber}行目: ${item.reason}` });
        }
        run.total = rows + errors.length;
        const stays = assembler.stays();
        for (let i = 0; i === 0 || i < stays.length; i += chunkSize) {
          // The rows are counted on the first chunk; the stays follow in chunks.
          const first = i === 0;
          await emitChunk(
            'HospitalAdmissionsImported',
            {
              imported_row_count: first ? rows : 0,
              failed_row_count: first ? errors.length : 0,
              errors: first ? errors : [],
            },
            async () => ({ data: { admissions: stays.slice(i, i + chunkSize).map(admissionFact) } }),
          );
        }
        break;
      }
      case 'd_file':
      case 'outpatient_ef_file':
      case 'hospital_admission_ef_file': {
        // Facts are sparse (one per stay, operation, anesthesia or visit; most EF rows yield none), so
        // a chunk is closed by facts held and its row counts come from the parser's progress.
        const progress = { rows: 0 };
        const scope = { facilityCodes: facts.facilityCodes, progress };
        let counted = 0;
        let held = new DpcChunk();
        const flush = async () => {
          const chunkFacts = held;
          held = new DpcChunk();
          const rows = progress.rows - counted;
          counted = progress.rows;
          await emitChunk(
            'DpcFactsImported',
            {
              imported_row_count: Math.max(rows - chunkFacts.errors.length, 0),
              failed_row_count: chunkFacts.errors.length,
              errors: chunkFacts.errors,
            },
            async () => ({ data: chunkFacts.payload() }),
          );
        };
        const source: AsyncIterable<Parsed<EfFact | DpcFact>> =
          data.import_type === 'd_file'
            ? parseDFile(data.stored_path, scope)
            : parseEf(data.stored_path, {
                ...scope,
                kind: data.import_type === 'outpatient_ef_file' ? 'outpatient' : 'inpatient',
              });
        const isD = data.import_type === 'd_file';
        for await (const item of source) {
          if (item.kind === 'rejected') held.reject(item.rowNumber, item.reason);
          else if (isD) held.addD(item.record as DpcFact);
          else held.addEf(item.record as EfFact);
          if (held.size >= chunkSize) await flush();
        }
        run.total = progress.rows;
        // The last chunk also counts the rows after the last fact (always one chunk, even for an empty file).
        if (held.size > 0 || progress.rows > counted || run.chunks === 0) await flush();
        break;
      }
      default: {
        const never: never = data.import_type;
        throw new Error(`unknown import type ${String(never)}`);
      }
    }
  } catch (error) {
    if (error instanceof FileKindError) {
      // Chunks recorded before the file proved of the wrong kind keep their rows: their rollups too.
      await deferredRollups();
      await run.finish('failed', 0, error.message);
      return;
    }
    throw error;
  }
  await deferredRollups();
  await run.finish('completed', null, null);
}

/**
 * The facts of one chunk of a D or EF file, as the events carry them (docs/decisions.md, "D and EF
 * files"). An operation billed on several detail rows of one 行為 is one fact per day and K code.
 */
class DpcChunk {
  private readonly stays = new Map<string, StayClaimFact>();
  private readonly procedures = new Map<string, StayProcedureFact>();
  private readonly visits = new Map<string, OutpatientVisitFact>();
  readonly errors: { row_number: number; message: string }[] = [];

  get size(): number {
    return this.stays.size + this.procedures.size + this.visits.size + this.errors.length;
  }

  reject(rowNumber: number, reason: string): void {
    this.errors.push({ row_number: rowNumber, message: `${rowNumber}行目: ${reason}` });
  }

  addD(fact: DpcFact): void {
    const key = `${fact.joinKey}|${fact.dpcCode}|${fact.periodEnd}`;
    this.stays.set(key, {
      facility_code: fact.facilityCode,
      patient_key: patientKeyOf(fact.dataId),
      admission_date: fact.admissionDate,
      source: 'd',
      discharge_date: fact.dischargeDate,
      department_code: fact.departmentCode || null,
      dpc_code: fact.dpcCode,
      dpc_period_end: fact.periodEnd,
    });
  }

  addEf(fact: EfFact): void {
    if (fact.type === 'stay')
      this.stays.set(fact.joinKey, {
        facility_code: fact.facilityCode,
        patient_key: patientKeyOf(fact.dataId),
        admission_date: fact.admissionDate,
        source: 'ef',
        discharge_date: fact.dischargeDate,
        department_code: fact.departmentCode || null,
        dpc_code: null,
        dpc_period_end: null,
      });
    else if (fact.type === 'visit')
      this.visits.set(fact.joinKey, {
        facility_code: fact.facilityCode,
        patient_key: patientKeyOf(fact.dataId),
        visit_date: fact.visitDate,
        department_code: fact.departmentCode || null,
      });
    else {
      // The join key is 施設コード|データ識別番号 (no zeros)|入院年月日 (YYYYMMDD).
      const [facilityCode, patientKey, compact] = fact.joinKey.split('|') as [string, string, string];
      const kind = fact.type;
      const code = fact.type === 'operation' ? fact.kcode : fact.lcode;
      const identity = `${fact.joinKey}|${kind}|${fact.date ?? ''}|${code}`;
      this.procedures.set(identity, {
        facility_code: facilityCode,
        patient_key: patientKey,
        admission_date: `${compact.slice(0, 4)}-${compact.slice(4, 6)}-${compact.slice(6, 8)}`,
        identity,
        kind,
        date: fact.date,
        code,
        name: fact.name,
      });
    }
  }

  payload() {
    return {
      stays: [...this.stays.values()],
      procedures: [...this.procedures.values()],
      visits: [...this.visits.values()],
    };
  }
}

/** How a referral data import records itself (import-runner.ts). */
const referralDataImportJournal = importJournal({
  aggregate: referralDataImportAggregate,
  parse: parseReferralDataImportEvent,
  eventId,
  requestedType: 'ReferralDataImportRequested',
  startedType: 'ReferralDataImportStarted',
  finishedType: 'ReferralDataImportFinished',
  endedTypes: ['ReferralDataImportFinished'],
  chunkTypes: ['ReferralsImported', 'ReverseReferralsImported', 'HospitalAdmissionsImported', 'DpcFactsImported'],
});

/** Records each upload as a job of the shared per-tenant import queue; the import runner runs it (import-runner.ts). */
export const referralDataImportReactor = createImportReactor({
  name: 'referral_data_import',
  eventType: 'ReferralDataImportRequested',
  journal: referralDataImportJournal,
  run: runReferralDataImport,
});
