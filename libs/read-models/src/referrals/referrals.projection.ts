import { sql, type Transaction } from 'kysely';
import { defineProjection, type ProjectionTables } from '@renkei/projections';
import type { RecordedEvent } from '@renkei/event-store';
import {
  eventDecoder,
  referralDataImportEventSchemas,
  referralDataWithdrawalEventSchemas,
  mappingProfileEventSchemas,
  institutionMatchEventSchemas,
  referralEntryEventSchemas,
  referralAdmissionPeriodEventSchemas,
  segmentationSettingEventSchemas,
  OwnDepartmentsReplaced,
  ownDepartmentNameKey,
  defaultReferralAdmissionPeriodDays,
  stableJson,
  uuidV5,
  referralsOfChunk,
  type HospitalAdmissionFact,
  type ReferralDataImportRollupsRequested,
  type ReferralFact,
  type ReverseReferralFact,
} from '@renkei/domain';
import { createTables, insertRows, tableNames, type WriteRow } from '../shared/table.ts';
import { referralContent, reverseReferralContent } from './referral-content.ts';
import { applyDpcFacts, mergeDpcFactsIntoStays, type DpcFactsInput } from './referrals.dpc-facts.ts';
import { dayAndMdcRollupTables, rebuildTenantDayAndMdcRollups, rollupDaysAndMdc } from './referrals.daily-rollups.ts';
import {
  attributeRollupTables,
  attributesAfter,
  attributesBefore,
  rebuildTenantAttributeRollups,
} from './referrals.attribute-rollups.ts';
import {
  dpcStayClaimsTable,
  dpcStayProceduresTable,
  outpatientVisitsTable,
  hospitalAdmissionsTable,
  institutionMatchesTable,
  mappingProfilesTable,
  referralDataImportsTable,
  referralFactImportsTable,
  referralCaseRollupsTable,
  referralInstitutionRollupsTable,
  referralMonthlyRollupsTable,
  referralPendingMonthsTable,
  referralPendingPatientsTable,
  referralPeriodRollupsTable,
  referralTenantCaseRollupsTable,
  referralTenantPeriodRollupsTable,
  referralOwnDepartmentsTable,
  referralsTable,
  reverseReferralsTable,
} from './referrals.tables.ts';
import { referralSettingsTable } from './referral-settings.tables.ts';
import { admissionPeriodOf, ReferralSettingsBatch } from './referral-settings.projection.ts';
import {
  applyWithdrawal,
  markWithdrawals,
  noteFactSources,
  type FactSource,
  type WithdrawalSlice,
} from './referrals.withdrawals.ts';
import { noDepartment, type Kind, type Patient, type RollupKey } from './referrals.keys.ts';

const decode = eventDecoder({
  ...referralDataImportEventSchemas,
  ...referralDataWithdrawalEventSchemas,
  ...mappingProfileEventSchemas,
  ...institutionMatchEventSchemas,
  ...referralEntryEventSchemas,
  ...referralAdmissionPeriodEventSchemas,
  ...segmentationSettingEventSchemas,
  OwnDepartmentsReplaced,
});
/** An event of a run: every event but OwnDepartmentsReplaced, which `handle` applies between runs. */
type RunEvent = {
  recorded: RecordedEvent;
  event: Exclude<ReturnType<typeof decode>, { type: 'OwnDepartmentsReplaced' }>;
};
const tables = [
  referralDataImportsTable,
  referralsTable,
  reverseReferralsTable,
  hospitalAdmissionsTable,
  referralMonthlyRollupsTable,
  referralPeriodRollupsTable,
  referralCaseRollupsTable,
  referralTenantPeriodRollupsTable,
  referralTenantCaseRollupsTable,
  mappingProfilesTable,
  institutionMatchesTable,
  dpcStayClaimsTable,
  dpcStayProceduresTable,
  outpatientVisitsTable,
  referralInstitutionRollupsTable,
  referralSettingsTable,
  ...dayAndMdcRollupTables,
  ...attributeRollupTables,
  referralPendingPatientsTable,
  referralPendingMonthsTable,
  referralOwnDepartmentsTable,
  referralFactImportsTable,
] as const;
type T = ProjectionTables<(typeof tables)[number]['name']>;

/**
 * Days after a referral within which a stay of the same patient counts as following it, for a tenant
 * whose owners never set `max_referral_hospital_admission_period` (ReferralAdmissionPeriodChanged).
 */
export const referralAdmissionPeriodDays = defaultReferralAdmissionPeriodDays;
// Namespace of fact row ids (uuidV5 of tenant and identity): the same referral keeps its id across uploads.
const factIdNamespace = '3b0c5e1d9a7f4c2e8d6b4a2f1e3c5d7b';

const factRowsPerStatement = 10_000;

type FactRow =
  | { kind: 'referral'; row: WriteRow<typeof referralsTable> }
  | { kind: 'reverse'; row: WriteRow<typeof reverseReferralsTable> }
  | { kind: 'admission'; row: WriteRow<typeof hospitalAdmissionsTable> };
interface Existing {
  content: string;
  import_id: string;
  patient_key: string;
  medical_institution_id: string | null;
  own_department_id: string | null;
  date: string;
}
interface ImportPatch {
  tenant_id: string;
  id: string;
  status: string | null;
  total_row_count: number | null;
  imported: number;
  failed: number;
  new_records: number;
  updated: number;
  unchanged: number;
  unmatched: number;
  unmatched_institutions: Record<string, number>;
  unknown_departments: number;
  unknown_department_names: Record<string, number>;
  errors: { row_number: number | null; message: string }[];
  finished: { imported: number; failed: number; unprocessed: number; abortion: number | null } | null;
}

const month = (isoDate: string) => `${isoDate.slice(0, 7)}-01`;

function toRow(
  kind: Kind,
  tenantId: string,
  importId: string,
  fact: ReferralFact | ReverseReferralFact | HospitalAdmissionFact,
  entryId?: string,
): FactRow {
  // An entry by hand keeps the id its POST answered; a row of a file derives its id from its identity.
  const id = entryId ?? uuidV5(factIdNamespace, `${tenantId}\u0000${fact.identity}`);
  // What a re-upload compares: everything the row says except where in which file it was read.
  // Written field by field: the rest-and-spread copies were, with stableJson, most of the per-row CPU.
  if (kind === 'referral') {
    const f = fact as ReferralFact;
    return {
      kind,
      row: {
        tenant_id: tenantId,
        id,
        import_id: importId,
        content: referralContent(f),
        identity: f.identity,
        referral_date: f.referral_date,
        patient_id: f.patient_id,
        patient_key: f.patient_key,
        medical_institution_id: f.medical_institution_id,
        institution_code: f.institution_code,
        institution_name: f.institution_name,
        from_department: f.from_department,
        from_doctor: f.from_doctor,
        to_department: f.to_department,
        own_department_id: f.own_department_id,
        to_doctor: f.to_doctor,
        purpose: f.purpose,
        first_visit: f.first_visit,
        source_id: f.source_id,
      },
    };
  }
  if (kind === 'reverse') {
    const f = fact as ReverseReferralFact;
    return {
      kind,
      row: {
        tenant_id: tenantId,
        id,
        import_id: importId,
        content: reverseReferralContent(f),
        identity: f.identity,
        reverse_referral_date: f.reverse_referral_date,
        patient_id: f.patient_id,
        patient_key: f.patient_key,
        medical_institution_id: f.medical_institution_id,
        institution_code: f.institution_code,
        institution_name: f.institution_name,
        own_department: f.own_department,
        own_department_id: f.own_department_id,
        source_id: f.source_id,
      },
    };
  }
  const { row_number: _rowNumber, ...content } = fact as HospitalAdmissionFact & { row_number?: number };
  const a = fact as HospitalAdmissionFact;
  return {
    kind,
    row: { tenant_id: tenantId, id, import_id: importId, content: stableJson(content), ...a, referral_id: null },
  };
}

const dateOf = (f: FactRow) =>
  f.kind === 'referral'
    ? f.row.referral_date
    : f.kind === 'reverse'
      ? f.row.reverse_referral_date
      : f.row.admission_date;

/**
 * Referral data (issue 12): the import records of /data_uploads, the facts (referrals, reverse
 * referrals, stays) keyed by their identity, the join of stays to referrals, and the monthly rollups.
 * Per batch and set-based: the facts of every chunk event are folded in memory against what the tables
 * hold (new / updated / already present counted on the import), written with one upsert per table,
 * then the stays of every patient touched are re-linked and the rollup rows those patients and rows
 * touch are recomputed from the facts, so late data links both ways and a rebuild gives the same rows.
 * A chunk of an import that defers its rollups (`rollups_deferred`, what the worker writes) only notes
 * the patients and institution-months it touched; the import's slices then run the same `recompute`
 * over them, a bounded share per transaction, and its end runs whatever is left.
 * A fact's own department is checked against the tenant's list as this projection last saw it, and the
 * rows are matched again by name when the list changes (`replaceOwnDepartments`).
 */
export const referralsProjection = defineProjection({
  name: 'referrals',
  // 2: the analysis rollups (period and case mix, per institution and per tenant) and the date indexes of the coverage.
  // 3: owners' hand matches of unmatched institutions (ReferralInstitutionMatched) re-attribute rows;
  //    referrals and reverse referrals entered by hand (ReferralEntered, ReverseReferralEntered).
  // 4: D and EF facts (DpcFactsImported) kept and merged into the FF1 stays (referrals.dpc-facts.ts).
  // 5: per-institution rollups by month, quarter and 年度 without other dimensions (rankings, issue 13).
  // 6: owners' admission period per tenant (and its re-link in slices), the segmentation setting, and
  //    corrections and withdrawals of hand entries (ReferralEntryUpdated, …Deleted).
  // 7: day rows per institution and per tenant, MDC rows per institution (referrals.daily-rollups.ts).
  // 8: institution-day rows (the day rows without other dimensions) for rankings' partial months, and
  //    the per-institution rollups indexed in ranking order.
  // 9: an import's chunks only write facts and note what they touched (referral_pending_*); the
  //    import's slices (ReferralDataImportRollupsRequested) and its end re-link and recompute them.
  // 10: rollups keyed by the master's facility type and prefecture (referrals.attribute-rollups.ts) for
  //     filtered charts and the aggregation by facility type, prefecture and MDC.
  // 11: per-institution 年度-to-month totals (`fiscal_year_to_month` rows) for 年度-to-date rankings.
  // 12: rows keyed by the master's facility type, prefecture and city together (`referral_area_rollups`,
  //     `referral_area_daily_rollups`, `referral_area_mdc_rollups`) for charts filtered by city, or by
  //     facility type and prefecture, and the aggregation by city.
  // 13: `referral_area_daily_rollups` keyed by own department, referral department and visit too, so an
  //     area filter with any of them reads its partial months there instead of per-institution probes.
  // 14: facts' own departments checked against the tenant's list as this projection last saw it
  //     (`referral_own_departments`, OwnDepartmentsReplaced) and matched by name, and rows re-matched
  //     when the list changes: rows imported before a department was added or renamed no longer stay 未設定.
  // 15: an import's rows whose department names none of the tenant's own departments, counted and named
  //     on its record (`unknown_department_row_count`, `unknown_departments`).
  // 16: owners withdraw uploads (ReferralDataImportWithdrawalRequested, …Withdrawn slices); the uploads
  //     that meet a fact already there are noted (`referral_fact_imports`) so a withdrawal keeps their rows;
  //     a withdrawal's and a re-link's slices note the months they leave, summed by rollup slices and an end.
  version: 16,
  eventTypes: decode.types,
  // An import's chunk carries 2,000 rows: 50 of them are 100,000 rows folded in memory at once.
  maxBatchEvents: 50,
  tables: tableNames(tables),
  setup: (trx, t) => createTables(trx, tables, t),
  /**
   * The batch in runs split at OwnDepartmentsReplaced, each run folded as one, the tenant's list replaced
   * (and its rows re-matched) between them: a fact is matched against the list that stood when its event
   * was written, whatever the batching, so a rebuild and live batches give the same rows.
   */
  async handle(trx, events, t) {
    let run: RunEvent[] = [];
    for (const recorded of events) {
      const event = decode(recorded);
      if (event.type !== 'OwnDepartmentsReplaced') {
        run.push({ recorded, event });
        continue;
      }
      if (run.length > 0) await applyRun(trx, t, run);
      run = [];
      await replaceOwnDepartments(trx, t, recorded.metadata.tenant_id, event.data.own_departments);
    }
    if (run.length > 0) await applyRun(trx, t, run);
  },
});

/** A run of a batch's events (none an OwnDepartmentsReplaced), folded and written set-wise. */
async function applyRun(trx: Transaction<unknown>, t: T, events: RunEvent[]): Promise<void> {
  const imports = new Map<string, ImportPatch>();
  const importColumns = [
    'tenant_id',
    'id',
    'import_type',
    'filename',
    'status',
    'abortion_row_number',
    'created_at',
    'created_by',
  ] as const;
  const newImports: Pick<WriteRow<typeof referralDataImportsTable>, (typeof importColumns)[number]>[] = [];
  const facts: FactInput[] = [];
  const dpcFacts: (DpcFactsInput & { deferred: boolean })[] = [];
  const patch = (tenantId: string, id: string) => {
    const key = `${tenantId}:${id}`;
    let p = imports.get(key);
    if (!p) {
      p = {
        tenant_id: tenantId,
        id,
        status: null,
        total_row_count: null,
        imported: 0,
        failed: 0,
        new_records: 0,
        updated: 0,
        unchanged: 0,
        unmatched: 0,
        unmatched_institutions: {},
        unknown_departments: 0,
        unknown_department_names: {},
        errors: [],
        finished: null,
      };
      imports.set(key, p);
    }
    return p;
  };
  const profiles = new Map<string, WriteRow<typeof mappingProfilesTable>>();
  const matches = new Map<string, WriteRow<typeof institutionMatchesTable>>();
  const settings = new ReferralSettingsBatch(recompute, async (trx, changeId, affected) =>
    notePending(trx, t, changeId, [], await relink(trx, t, affected, [])),
  );
  /** The deferred work the batch's slices and import ends take, in the order of their events. */
  const deferredSteps: DeferredStep[] = [];
  const withdrawalMarks: Parameters<typeof markWithdrawals>[2] = [];
  const withdrawals: WithdrawalSlice[] = [];
  for (const { recorded, event } of events) {
    const tenantId = recorded.metadata.tenant_id;
    switch (event.type) {
      case 'MappingProfilesReplaced':
        profiles.set(tenantId, { tenant_id: tenantId, profiles: event.data.profiles, version: recorded.revision });
        break;
      case 'ReferralInstitutionMatched': {
        const m = {
          tenant_id: tenantId,
          institution_code: event.data.institution_code ?? '',
          institution_name: event.data.institution_name ?? '',
          medical_institution_id: event.data.medical_institution_id,
        };
        matches.set(`${tenantId}|${m.institution_code}|${m.institution_name}`, m);
        break;
      }
      // An entry by hand stands as its own import (no import record: its patch updates no row).
      case 'ReferralEntered':
      case 'ReferralEntryUpdated':
        facts.push({
          kind: 'referral',
          tenantId,
          importId: event.data.referral_id,
          fact: event.data.referral,
          entryId: event.data.referral_id,
        });
        break;
      case 'ReverseReferralEntered':
      case 'ReverseReferralEntryUpdated':
        facts.push({
          kind: 'reverse',
          tenantId,
          importId: event.data.reverse_referral_id,
          fact: event.data.reverse_referral,
          entryId: event.data.reverse_referral_id,
        });
        break;
      case 'ReferralEntryDeleted':
      case 'ReverseReferralEntryDeleted':
      case 'ReferralAdmissionPeriodChanged':
      case 'ReferralStaysRelinkRequested':
      case 'SegmentationSettingReplaced':
        settings.add(event, recorded);
        break;
      case 'ReferralDataImportRequested':
        newImports.push({
          tenant_id: tenantId,
          id: event.data.import_id,
          import_type: event.data.import_type,
          filename: event.data.filename,
          status: 'waiting',
          abortion_row_number: null,
          created_at: recorded.created_at.toISOString(),
          created_by: recorded.metadata.account_id,
        });
        break;
      case 'ReferralDataImportStarted': {
        const p = patch(tenantId, event.data.import_id);
        p.status = 'processing';
        p.total_row_count = event.data.total_row_count;
        break;
      }
      case 'ReferralsImported':
      case 'ReverseReferralsImported':
      case 'HospitalAdmissionsImported': {
        const d = event.data;
        const p = patch(tenantId, d.import_id);
        p.imported += d.imported_row_count;
        p.failed += d.failed_row_count;
        p.errors.push(...d.errors);
        const [kind, list]: [Kind, (ReferralFact | ReverseReferralFact | HospitalAdmissionFact)[]] =
          event.type === 'ReferralsImported'
            ? ['referral', referralsOfChunk(event.data)]
            : event.type === 'ReverseReferralsImported'
              ? ['reverse', event.data.reverse_referrals]
              : ['admission', event.data.admissions];
        const deferredTo = d.rollups_deferred ? d.import_id : undefined;
        for (const fact of list) facts.push({ kind, tenantId, importId: d.import_id, fact, deferredTo });
        break;
      }
      case 'DpcFactsImported': {
        const d = event.data;
        const p = patch(tenantId, d.import_id);
        p.imported += d.imported_row_count;
        p.failed += d.failed_row_count;
        p.errors.push(...d.errors);
        dpcFacts.push({
          tenantId,
          importId: d.import_id,
          stays: d.stays,
          procedures: d.procedures,
          visits: d.visits,
          deferred: d.rollups_deferred ?? false,
        });
        break;
      }
      case 'ReferralDataImportRollupsRequested': {
        const d = event.data;
        deferredSteps.push({ tenantId, importId: d.import_id, slice: d });
        break;
      }
      case 'ReferralDataImportWithdrawalRequested':
        withdrawalMarks.push({
          tenant_id: tenantId,
          import_id: event.data.import_id,
          at: recorded.created_at.toISOString(),
          step: 'requested',
        });
        break;
      case 'ReferralDataImportWithdrawn':
        withdrawals.push({ tenant_id: tenantId, import_id: event.data.import_id, rows: event.data.rows });
        break;
      // As an import's end: whatever the withdrawal's slices did not re-link and sum is done now.
      case 'ReferralStaysRelinkCompleted':
        deferredSteps.push({ tenantId, importId: event.data.change_id, slice: null });
        break;
      case 'ReferralDataImportWithdrawalCompleted':
        // Any row its slices left (none, unless the upload's count was short) goes before the end sums.
        withdrawals.push({ tenant_id: tenantId, import_id: event.data.import_id, rows: null });
        deferredSteps.push({ tenantId, importId: event.data.import_id, slice: null });
        withdrawalMarks.push({
          tenant_id: tenantId,
          import_id: event.data.import_id,
          at: recorded.created_at.toISOString(),
          step: 'completed',
        });
        break;
      case 'ReferralDataImportFinished': {
        const d = event.data;
        const p = patch(tenantId, d.import_id);
        p.status = d.status;
        p.finished = {
          imported: d.imported_row_count,
          failed: d.failed_row_count,
          unprocessed: d.unprocessed_row_count,
          abortion: d.abortion_row_number,
        };
        if (d.error) p.errors.push(d.error);
        // What the import's slices did not take (an import that ended before them, or written before v8).
        deferredSteps.push({ tenantId, importId: d.import_id, slice: null });
        break;
      }
      default: {
        const never: never = event;
        throw new Error(`referrals projection: unexpected event ${JSON.stringify(never)}`);
      }
    }
  }

  await insertRows(trx, t.referral_data_imports, referralDataImportsTable, newImports, {
    columns: importColumns,
    onConflict: sql`ON CONFLICT DO NOTHING`,
  });
  await insertRows(trx, t.data_upload_mapping_profiles, mappingProfilesTable, [...profiles.values()], {
    onConflict: sql`ON CONFLICT (tenant_id) DO UPDATE SET profiles = excluded.profiles, version = excluded.version`,
  });
  // The matches first, so the facts of this batch are attributed by them as by those of earlier batches.
  await insertRows(trx, t.referral_institution_matches, institutionMatchesTable, [...matches.values()], {
    onConflict: sql`ON CONFLICT (tenant_id, institution_code, institution_name) DO UPDATE SET medical_institution_id = excluded.medical_institution_id`,
  });
  await settings.applySettings(trx, t);
  // An import that ends in this batch (a rebuild, or an import that stopped soon): its chunks here are
  // recomputed with the batch rather than noted and taken back by its slices; what earlier batches
  // noted is still taken by its slices and its end, after.
  const endsHere = new Set(deferredSteps.filter((s) => s.slice === null).map((s) => `${s.tenantId}|${s.importId}`));
  for (const f of facts) if (f.deferredTo && endsHere.has(`${f.tenantId}|${f.deferredTo}`)) f.deferredTo = undefined;
  for (const d of dpcFacts) if (d.deferred && endsHere.has(`${d.tenantId}|${d.importId}`)) d.deferred = false;
  if (facts.length > 0) await applyFacts(trx, t, facts, patch);
  const countDpc = (tenantId: string, importId: string, c: { new: number; updated: number; unchanged: number }) => {
    const p = patch(tenantId, importId);
    p.new_records += c.new;
    p.updated += c.updated;
    p.unchanged += c.unchanged;
  };
  const immediateDpc = dpcFacts.filter((d) => !d.deferred);
  if (immediateDpc.length > 0) {
    const patients = await applyDpcFacts(trx, t, immediateDpc, countDpc);
    if (patients.length > 0) await recompute(trx, t, patients, []);
  }
  // Deferred: one call per import, so the patients each returns are noted against it.
  for (const importKey of new Set(dpcFacts.filter((d) => d.deferred).map((d) => `${d.tenantId}|${d.importId}`))) {
    const inputs = dpcFacts.filter((d) => d.deferred && `${d.tenantId}|${d.importId}` === importKey);
    const patients = await applyDpcFacts(trx, t, inputs, countDpc);
    await notePending(trx, t, inputs[0]!.importId, patients, []);
  }
  await settings.applyDeletionsAndRelinks(trx, t);
  // After the batch's facts: an upload of this batch that meets a withdrawn upload's rows keeps them.
  // What the rows leave (patients to re-link, months to sum) is noted against the withdrawn upload, for
  // the withdrawal's re-link and rollup slices and its end, as an import's chunks note theirs: summed
  // here, each slice would sum again every month it touches, which is most of the tenant's.
  for (const w of withdrawals) {
    const gone = await applyWithdrawal(trx, t, w);
    await notePending(trx, t, w.import_id, gone.patients, gone.keys);
  }
  if (matches.size > 0) await reattribute(trx, t, [...matches.values()]);
  // The slices of an import that ends in this batch are left to its end, which takes all they would
  // (every pending patient linked, then every pending month summed) in one step: the same rows, and
  // one set of statements instead of one per slice (a rebuild reads an import's slices and end together).
  const steps = deferredSteps.filter((s) => s.slice === null || !endsHere.has(`${s.tenantId}|${s.importId}`));
  for (const step of steps) await runDeferredStep(trx, t, step);
  await applyImportPatches(trx, t, [...imports.values()]);
  await markWithdrawals(trx, t, withdrawalMarks);
}

interface FactInput {
  kind: Kind;
  tenantId: string;
  importId: string;
  fact: ReferralFact | ReverseReferralFact | HospitalAdmissionFact;
  entryId?: string;
  /** The import whose slices re-link and recompute what this fact touches, instead of its batch. */
  deferredTo?: string | undefined;
}

async function applyFacts(
  trx: Transaction<unknown>,
  t: T,
  facts: FactInput[],
  patch: (tenantId: string, importId: string) => ImportPatch,
): Promise<void> {
  const physical: Record<Kind, string> = {
    referral: t.referrals,
    reverse: t.reverse_referrals,
    admission: t.hospital_admissions,
  };
  const dateColumn: Record<Kind, string> = {
    referral: 'referral_date',
    reverse: 'reverse_referral_date',
    admission: 'admission_date',
  };
  // What the tables hold for the batch's identities: one statement per kind.
  const existing = new Map<string, Existing>();
  for (const kind of ['referral', 'reverse', 'admission'] as const) {
    const keys = facts.filter((f) => f.kind === kind);
    if (keys.length === 0) continue;
    const { rows } = await sql<Existing & { tenant_id: string; identity: string }>`
      SELECT c.tenant_id, c.identity, c.content, c.import_id, c.patient_key,
             ${kind === 'admission' ? sql`NULL::uuid` : sql`c.medical_institution_id`} AS medical_institution_id,
             ${kind === 'admission' ? sql`NULL::uuid` : sql`c.own_department_id`} AS own_department_id,
             to_char(c.${sql.ref(dateColumn[kind])}, 'YYYY-MM-DD') AS date
        FROM ${sql.table(physical[kind])} c
        JOIN unnest(${sql.val(keys.map((k) => k.tenantId))}::uuid[], ${sql.val(keys.map((k) => k.fact.identity))}::text[]) AS k(tenant_id, identity)
          ON c.tenant_id = k.tenant_id AND c.identity = k.identity`.execute(trx);
    for (const r of rows) existing.set(`${kind}|${r.tenant_id}|${r.identity}`, r);
  }

  // Owners' hand matches of the (code, name) of the batch's rows the master did not match.
  const unmatchedKey = (tenantId: string, f: ReferralFact | ReverseReferralFact) =>
    `${tenantId}|${f.institution_code ?? ''}|${f.institution_name ?? ''}`;
  const wanted = facts.filter((f) => f.kind !== 'admission' && !(f.fact as ReferralFact).medical_institution_id);
  const handMatches = new Map<string, string>();
  if (wanted.length > 0) {
    const { rows } = await sql<{ key: string; medical_institution_id: string }>`
      SELECT m.tenant_id || '|' || m.institution_code || '|' || m.institution_name AS key, m.medical_institution_id
        FROM ${sql.table(t.referral_institution_matches)} m
        JOIN (SELECT DISTINCT * FROM unnest(${sql.val(wanted.map((f) => f.tenantId))}::uuid[],
                ${sql.val(wanted.map((f) => (f.fact as ReferralFact).institution_code ?? ''))}::text[],
                ${sql.val(wanted.map((f) => (f.fact as ReferralFact).institution_name ?? ''))}::text[]) AS k(tenant_id, code, name)) k
          ON m.tenant_id = k.tenant_id AND m.institution_code = k.code AND m.institution_name = k.name`.execute(trx);
    for (const r of rows) handMatches.set(r.key, r.medical_institution_id);
  }
  // The own departments of the tenants of the batch's referrals and reverse referrals, as last seen.
  const ownDepartments = await ownDepartmentsOf(trx, t, [
    ...new Set(facts.filter((f) => f.kind !== 'admission').map((f) => f.tenantId)),
  ]);

  const latest = new Map<string, FactRow>();
  const sources: FactSource[] = [];
  /** What the batch touched: '' for the work done now, else the import id that deferred it. */
  const touched = new Map<string, { patients: Map<string, Patient>; keys: Map<string, RollupKey> }>();
  const touchedOf = (deferredTo: string | undefined) => {
    let w = touched.get(deferredTo ?? '');
    if (!w) touched.set(deferredTo ?? '', (w = { patients: new Map(), keys: new Map() }));
    return w;
  };
  const addKey = (
    deferredTo: string | undefined,
    tenantId: string,
    institution: string | null,
    department: string | null,
    date: string,
  ) => {
    if (!institution) return;
    const k = {
      tenant_id: tenantId,
      medical_institution_id: institution,
      own_department_id: department ?? noDepartment,
      month: month(date),
    };
    touchedOf(deferredTo).keys.set(`${k.tenant_id}|${k.medical_institution_id}|${k.own_department_id}|${k.month}`, k);
  };
  const touch = (deferredTo: string | undefined, tenantId: string, patientKey: string) =>
    touchedOf(deferredTo).patients.set(`${tenantId}|${patientKey}`, { tenant_id: tenantId, patient_key: patientKey });

  for (const { kind, tenantId, importId, fact, entryId, deferredTo } of facts) {
    const key = `${kind}|${tenantId}|${fact.identity}`;
    const next = toRow(kind, tenantId, importId, fact, entryId);
    // The row keeps what the file said in `content` (a re-upload compares that) and is attributed by hand.
    if (next.kind !== 'admission' && !next.row.medical_institution_id)
      next.row.medical_institution_id = handMatches.get(unmatchedKey(tenantId, fact as ReferralFact)) ?? null;
    // And its own department is one of the tenant's departments (`content` keeps the event's id).
    if (next.kind !== 'admission')
      next.row.own_department_id = departmentOf(
        ownDepartments.get(tenantId),
        next.row.own_department_id,
        next.kind === 'referral' ? next.row.to_department : next.row.own_department,
      );
    const before = latest.get(key);
    const prev: Existing | undefined = before
      ? {
          content: before.row.content,
          import_id: before.row.import_id,
          patient_key: before.row.patient_key,
          medical_institution_id: before.kind === 'admission' ? null : before.row.medical_institution_id,
          own_department_id: before.kind === 'admission' ? null : before.row.own_department_id,
          date: dateOf(before),
        }
      : existing.get(key);
    const p = patch(tenantId, importId);
    if (next.kind !== 'admission' && !next.row.medical_institution_id) {
      const f = fact as ReferralFact;
      p.unmatched++;
      const name = `${f.institution_code ?? ''}|${f.institution_name ?? ''}`;
      p.unmatched_institutions[name] = (p.unmatched_institutions[name] ?? 0) + 1;
    }
    // A department named in the row that is none of the tenant's own: kept as written, reported on the import.
    if (next.kind !== 'admission' && !next.row.own_department_id) {
      const written = next.kind === 'referral' ? next.row.to_department : next.row.own_department;
      if (written !== null && written.trim() !== '') {
        p.unknown_departments++;
        p.unknown_department_names[written] = (p.unknown_department_names[written] ?? 0) + 1;
      }
    }
    if (prev && prev.content === next.row.content) {
      p.unchanged++;
      if (prev.import_id !== importId)
        sources.push({ tenant_id: tenantId, import_id: importId, kind, identity: fact.identity });
      continue;
    }
    // The row becomes this upload's; the one that wrote it before still holds it.
    if (prev && prev.import_id !== importId)
      sources.push({ tenant_id: tenantId, import_id: prev.import_id, kind, identity: fact.identity });
    if (prev) p.updated++;
    else p.new_records++;
    latest.set(key, next);
    if (prev) {
      touch(deferredTo, tenantId, prev.patient_key);
      if (kind !== 'admission')
        addKey(deferredTo, tenantId, prev.medical_institution_id, prev.own_department_id, prev.date);
    }
    touch(deferredTo, tenantId, next.row.patient_key);
    if (next.kind !== 'admission')
      addKey(deferredTo, tenantId, next.row.medical_institution_id, next.row.own_department_id, dateOf(next));
  }

  const changed = [...latest.values()];
  const upsert = async <K extends Kind>(kind: K, table: (typeof tables)[number]) => {
    const rows = changed.filter((f) => f.kind === kind);
    // A key the lookup above did not find is absent from the table: this batch's transaction holds the
    // build's checkpoint row, so no other writer adds it meanwhile, and `latest` holds each key once.
    // Those rows go in with a plain INSERT (no arbiter probe, no speculative insertion), which is most
    // rows of an import of new data and every row of a rebuild from empty tables.
    const fresh: WriteRow<typeof table>[] = [];
    const known: WriteRow<typeof table>[] = [];
    for (const f of rows) (existing.has(`${kind}|${f.row.tenant_id}|${f.row.identity}`) ? known : fresh).push(f.row);
    const columns = Object.keys(table.columns).filter(
      (c) => c !== 'tenant_id' && c !== 'identity' && c !== 'referral_id',
    );
    // At most factRowsPerStatement rows per statement: a rebuild's batch holds up to 1,000 chunk events
    // (2,000,000 rows), whose one JSON text would pass V8's longest string, and json_to_recordset keeps
    // its rows in a tuplestore that spills to disk past work_mem.
    await insertRows(trx, physical[kind], table, fresh as never[], {
      plainJson: true,
      rowsPerStatement: factRowsPerStatement,
    });
    await insertRows(trx, physical[kind], table, known as never[], {
      plainJson: true,
      rowsPerStatement: factRowsPerStatement,
      onConflict: sql`ON CONFLICT (tenant_id, identity) DO UPDATE SET ${sql.raw(columns.map((c) => `${c} = excluded.${c}`).join(', '))}`,
    });
  };
  await upsert('referral', referralsTable);
  await upsert('reverse', reverseReferralsTable);
  await upsert('admission', hospitalAdmissionsTable);
  await noteFactSources(trx, t, sources);
  // D/EF facts that came before (or with) these stays' FF1 rows; the patients are already touched.
  await mergeDpcFactsIntoStays(
    trx,
    t,
    changed.flatMap((f) =>
      f.kind === 'admission'
        ? [
            {
              tenant_id: f.row.tenant_id,
              patient_key: f.row.patient_key,
              admission_date: f.row.admission_date,
              facility_code: f.row.identity.split('|')[0]!,
            },
          ]
        : [],
    ),
  );
  for (const [deferredTo, w] of touched) {
    if (w.patients.size === 0 && w.keys.size === 0) continue;
    if (deferredTo === '') await recompute(trx, t, [...w.patients.values()], [...w.keys.values()]);
    else await notePending(trx, t, deferredTo, [...w.patients.values()], [...w.keys.values()]);
  }
}

/**
 * A hand match: the referrals and reverse referrals of its tenant whose file named that code and name
 * and matched nothing (`content` keeps the file's null) follow the chosen institution, and the rollup
 * months of the institution they leave (none, or an earlier match) and of the one they join are
 * recomputed from the facts.
 */
async function reattribute(trx: Transaction<unknown>, t: T, matches: WriteRow<typeof institutionMatchesTable>[]) {
  const keys = new Map<string, RollupKey>();
  const list = sql`jsonb_to_recordset(${JSON.stringify(matches)}::jsonb)
    AS m(tenant_id uuid, institution_code text, institution_name text, medical_institution_id uuid)`;
  for (const [table, dateColumn] of [
    [t.referrals, 'referral_date'],
    [t.reverse_referrals, 'reverse_referral_date'],
  ] as const) {
    const { rows } = await sql<{
      tenant_id: string;
      before: string | null;
      after: string;
      own_department_id: string | null;
      month: string;
    }>`
      WITH moved AS (
        SELECT c.tenant_id, c.identity, c.medical_institution_id AS before, m.medical_institution_id AS after
          FROM ${sql.table(table)} c JOIN ${list}
            ON c.tenant_id = m.tenant_id AND coalesce(c.institution_code, '') = m.institution_code
           AND coalesce(c.institution_name, '') = m.institution_name
         WHERE c.medical_institution_id IS DISTINCT FROM m.medical_institution_id
           AND (c.content::jsonb ->> 'medical_institution_id') IS NULL)
      UPDATE ${sql.table(table)} AS c SET medical_institution_id = moved.after
        FROM moved WHERE c.tenant_id = moved.tenant_id AND c.identity = moved.identity
      RETURNING c.tenant_id, moved.before, moved.after, c.own_department_id,
                to_char(c.${sql.ref(dateColumn)}, 'YYYY-MM-DD') AS month`.execute(trx);
    for (const r of rows)
      for (const institution of [r.before, r.after]) {
        if (!institution) continue;
        const k = {
          tenant_id: r.tenant_id,
          medical_institution_id: institution,
          own_department_id: r.own_department_id ?? noDepartment,
          month: month(r.month),
        };
        keys.set(`${k.tenant_id}|${k.medical_institution_id}|${k.own_department_id}|${k.month}`, k);
      }
  }
  if (keys.size > 0) await recompute(trx, t, [], [...keys.values()]);
}

/** A tenant's own departments as this projection last saw them: their ids, and the id of each name. */
interface OwnDepartmentList {
  ids: Set<string>;
  /** `ownDepartmentNameKey` → id; of two departments of the same name, the lowest id (the same in every batching). */
  byName: Map<string, string>;
}

/** The known own-department lists of these tenants (a tenant whose list was never seen has none). */
async function ownDepartmentsOf(
  trx: Transaction<unknown>,
  t: T,
  tenantIds: string[],
): Promise<Map<string, OwnDepartmentList>> {
  const lists = new Map<string, OwnDepartmentList>();
  if (tenantIds.length === 0) return lists;
  const { rows } = await sql<{ tenant_id: string; own_department_id: string; name_key: string | null }>`
    SELECT tenant_id, own_department_id, name_key FROM ${sql.table(t.referral_own_departments)}
     WHERE tenant_id = ANY(${sql.val(tenantIds)}::uuid[])`.execute(trx);
  for (const r of rows) {
    let list = lists.get(r.tenant_id);
    if (!list) lists.set(r.tenant_id, (list = { ids: new Set(), byName: new Map() }));
    // The nil-uuid row only says the list is known.
    if (r.name_key === null) continue;
    list.ids.add(r.own_department_id);
    const named = list.byName.get(r.name_key);
    if (r.name_key !== '' && (named === undefined || r.own_department_id < named))
      list.byName.set(r.name_key, r.own_department_id);
  }
  return lists;
}

/**
 * The own department a fact is written with: the event's (the worker's match when the file was read,
 * or the form's) while the tenant's list is unknown or holds it, else the department of the row's
 * department text by name (none: null).
 */
function departmentOf(list: OwnDepartmentList | undefined, id: string | null, text: string | null): string | null {
  if (!list) return id;
  if (id !== null && list.ids.has(id.toLowerCase())) return id;
  return text === null ? null : (list.byName.get(ownDepartmentNameKey(text)) ?? null);
}

/**
 * OwnDepartmentsReplaced: the tenant's list is replaced, then its referrals and reverse referrals whose
 * department is none or not in the list any more are matched again by their department text (possibly
 * to none: a deleted department's rows are released), and the rollup months of the institution-months
 * they leave and join are recomputed from the facts, as `reattribute` does for hand matches.
 */
async function replaceOwnDepartments(
  trx: Transaction<unknown>,
  t: T,
  tenantId: string,
  departments: OwnDepartmentsReplaced['own_departments'],
): Promise<void> {
  await sql`DELETE FROM ${sql.table(t.referral_own_departments)} WHERE tenant_id = ${tenantId}`.execute(trx);
  await insertRows(
    trx,
    t.referral_own_departments,
    referralOwnDepartmentsTable,
    [
      { tenant_id: tenantId, own_department_id: noDepartment, name_key: null },
      ...departments
        .filter((d) => d.id.toLowerCase() !== noDepartment)
        .map((d) => ({
          tenant_id: tenantId,
          own_department_id: d.id.toLowerCase(),
          name_key: ownDepartmentNameKey(d.name),
        })),
    ],
    { onConflict: sql`ON CONFLICT DO NOTHING` },
  );
  const list = (await ownDepartmentsOf(trx, t, [tenantId])).get(tenantId)!;
  const ids = [...list.ids];
  const keys = new Map<string, RollupKey>();
  for (const [table, textColumn, dateColumn] of [
    [t.referrals, 'to_department', 'referral_date'],
    [t.reverse_referrals, 'own_department', 'reverse_referral_date'],
  ] as const) {
    const stale = sql`c.tenant_id = ${tenantId} AND (c.own_department_id IS NULL OR c.own_department_id <> ALL(${sql.val(ids)}::uuid[]))`;
    // Matched here rather than with SQL's normalize(): the same function as the facts' and the worker's.
    const { rows: texts } = await sql<{ text: string }>`
      SELECT DISTINCT ${sql.ref(`c.${textColumn}`)} AS text FROM ${sql.table(table)} c
       WHERE ${stale} AND ${sql.ref(`c.${textColumn}`)} IS NOT NULL`.execute(trx);
    const matched = texts.flatMap((r) => {
      const id = list.byName.get(ownDepartmentNameKey(r.text));
      return id === undefined ? [] : [{ text: r.text, id }];
    });
    const { rows } = await sql<{
      medical_institution_id: string | null;
      before: string | null;
      after: string | null;
      month: string;
    }>`
      WITH moved AS (
        SELECT c.identity, c.own_department_id AS before, m.id AS after
          FROM ${sql.table(table)} c
          LEFT JOIN jsonb_to_recordset(${JSON.stringify(matched)}::jsonb) AS m(text text, id uuid)
            ON m.text = ${sql.ref(`c.${textColumn}`)}
         WHERE ${stale} AND c.own_department_id IS DISTINCT FROM m.id)
      UPDATE ${sql.table(table)} AS c SET own_department_id = moved.after
        FROM moved WHERE c.tenant_id = ${tenantId} AND c.identity = moved.identity
      RETURNING c.medical_institution_id, moved.before, moved.after,
                to_char(${sql.ref(`c.${dateColumn}`)}, 'YYYY-MM-DD') AS month`.execute(trx);
    for (const r of rows) {
      if (!r.medical_institution_id) continue;
      for (const department of [r.before, r.after]) {
        const k = {
          tenant_id: tenantId,
          medical_institution_id: r.medical_institution_id,
          own_department_id: department ?? noDepartment,
          month: month(r.month),
        };
        keys.set(`${k.tenant_id}|${k.medical_institution_id}|${k.own_department_id}|${k.month}`, k);
      }
    }
  }
  if (keys.size > 0) await recompute(trx, t, [], [...keys.values()]);
}

/**
 * Re-links the stays of the patients touched, then brings the rollups of every institution-month of
 * `keys` and of those patients' referrals up to date (rollupInstitutionMonths).
 */
async function recompute(trx: Transaction<unknown>, t: T, affected: Patient[], keys: RollupKey[]): Promise<void> {
  const months = await relink(trx, t, affected, keys);
  await rollupMonths(trx, t, months);
}

/**
 * Touched institution-months of one tenant from which its rollups are summed again set-wise over the
 * whole 年度 holding them (bulkRollups) rather than month by month: both give the same rows (the
 * rollups tests check it, with this lowered so that both paths run), and with thousands of months — a rebuild, a first or a large import — the
 * set-wise statements read each fact once where the per-month ones join every month to its facts.
 */
export const rollupTuning = { bulkMonths: 256 };

/**
 * The rollups of whole institution-months, from the facts and the stays' links as they stand. Answers
 * the tenants summed again set-wise, with the 年度 they were summed over.
 */
async function rollupMonths(
  trx: Transaction<unknown>,
  t: T,
  months: InstitutionMonth[],
): Promise<Map<string, { from: string; to: string }>> {
  if (months.length === 0) return new Map();
  const bulk = await bulkRollupTenants(trx, t, months);
  if (bulk.size > 0) {
    for (const [tenantId, range] of bulk) await bulkRollups(trx, t, tenantId, range);
    months = months.filter((m) => !bulk.has(m.tenant_id));
    if (months.length === 0) return bulk;
  }
  // The attribute rows take the difference these months make: what they contribute before and after.
  const attributes = await attributesBefore(trx, t, months);
  await rollupInstitutionMonths(trx, t, months);
  await rollupDaysAndMdc(trx, t, months);
  await attributesAfter(trx, t, months, attributes);
  return bulk;
}

/**
 * The tenants whose touched months are summed again set-wise, each with the whole 年度 to sum: those
 * with at least `rollupTuning.bulkMonths` touched months that are at least half of the institution-months the
 * tenant has rollups for in those 年度 (so a small import into a large history stays per month).
 */
async function bulkRollupTenants(
  trx: Transaction<unknown>,
  t: T,
  months: InstitutionMonth[],
): Promise<Map<string, { from: string; to: string }>> {
  const byTenant = new Map<string, { count: number; first: string; last: string }>();
  for (const m of months) {
    const cur = byTenant.get(m.tenant_id);
    if (!cur) byTenant.set(m.tenant_id, { count: 1, first: m.month, last: m.month });
    else {
      cur.count++;
      if (m.month < cur.first) cur.first = m.month;
      if (m.month > cur.last) cur.last = m.month;
    }
  }
  const bulk = new Map<string, { from: string; to: string }>();
  for (const [tenantId, { count, first, last }] of byTenant) {
    if (count < rollupTuning.bulkMonths) continue;
    const range = { from: fiscalYearStart(first), to: `${Number(fiscalYearStart(last).slice(0, 4)) + 1}-04-01` };
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM ${sql.table(t.referral_institution_rollups)}
       WHERE tenant_id = ${tenantId} AND span = 'month' AND period_start >= ${range.from}::date AND period_start < ${range.to}::date`.execute(
      trx,
    );
    if (count * 2 >= (rows[0]?.n ?? 0)) bulk.set(tenantId, range);
  }
  return bulk;
}

/** Every rollup of a tenant over whole 年度 summed again from its facts and links, set-wise. */
async function bulkRollups(
  trx: Transaction<unknown>,
  t: T,
  tenantId: string,
  range: { from: string; to: string },
): Promise<void> {
  await rebuildTenantAnalysisRollups(trx, t, tenantId, range);
  await rebuildTenantDayAndMdcRollups(trx, t, tenantId, range);
  await rebuildTenantAttributeRollups(trx, t, tenantId);
}

/**
 * `recompute`'s first half: re-links the stays of the patients `affected`, and answers the
 * institution-months whose rollups are then out of date (those of `keys` and of the referrals whose
 * stays changed or moved).
 */
async function relink(
  trx: Transaction<unknown>,
  t: T,
  affected: Patient[],
  keys: { tenant_id: string; medical_institution_id: string; month: string }[],
): Promise<InstitutionMonth[]> {
  if (affected.length === 0 && keys.length === 0) return [];
  const patients = sql`unnest(${sql.val(affected.map((p) => p.tenant_id))}::uuid[], ${sql.val(affected.map((p) => p.patient_key))}::text[]) AS p(tenant_id, patient_key)`;
  const latestReferral = sql`(
    SELECT r.id FROM ${sql.table(t.referrals)} r
     WHERE r.tenant_id = a.tenant_id AND r.patient_key = a.patient_key
       AND a.admission_date BETWEEN r.referral_date AND r.referral_date + ${admissionPeriodOf(t, sql`a.tenant_id`)}
     ORDER BY r.referral_date DESC, r.id DESC LIMIT 1)`;
  // Each stay of a touched patient follows the latest referral it qualifies for, never two. Whose
  // figures that can change: the referrals a touched patient's stay was linked to (the stay itself may
  // have changed: K-code, DPC, date, another patient) and those a stay moves to. A patient's other
  // referrals keep their stays as they were, so their months are not summed again for nothing.
  const { rows: months } = await sql<InstitutionMonth>`
    WITH cur AS MATERIALIZED (
      SELECT a.tenant_id, a.identity, a.referral_id AS before
        FROM ${sql.table(t.hospital_admissions)} a JOIN ${patients} ON a.tenant_id = p.tenant_id AND a.patient_key = p.patient_key),
    moved AS (
      UPDATE ${sql.table(t.hospital_admissions)} AS a SET referral_id = ${latestReferral}
        FROM cur WHERE a.tenant_id = cur.tenant_id AND a.identity = cur.identity AND a.referral_id IS DISTINCT FROM ${latestReferral}
      RETURNING a.tenant_id, a.referral_id AS after),
    linked AS (
      SELECT tenant_id, before AS id FROM cur WHERE before IS NOT NULL
      UNION SELECT tenant_id, after FROM moved WHERE after IS NOT NULL)
    SELECT DISTINCT tenant_id, medical_institution_id, to_char(month, 'YYYY-MM-DD') AS month FROM (
      SELECT k.tenant_id, k.medical_institution_id, k.month
        FROM jsonb_to_recordset(${JSON.stringify(keys)}::jsonb) AS k(tenant_id uuid, medical_institution_id uuid, month date)
      UNION ALL
      SELECT r.tenant_id, r.medical_institution_id, date_trunc('month', r.referral_date)::date
        FROM linked l JOIN ${sql.table(t.referrals)} r ON r.tenant_id = l.tenant_id AND r.id = l.id
       WHERE r.medical_institution_id IS NOT NULL) u`.execute(trx);
  return months;
}

/** A slice (or the end) of an import that deferred its rollups, with the tenant whose events it is of. */
interface DeferredStep {
  tenantId: string;
  importId: string;
  /** Null: the import's end, which takes everything its slices left. */
  slice: ReferralDataImportRollupsRequested | null;
}

/**
 * Notes what a deferred chunk touched: its import's slices (or end) re-link and recompute it. Only the
 * patients with a stay are noted: re-linking moves stays, so a patient without one has nothing to
 * re-link, and a stay that comes later re-links its patient itself (its own change or its import's
 * slices), against the referrals written by then. A referral list's import notes almost none.
 */
async function notePending(
  trx: Transaction<unknown>,
  t: T,
  importId: string,
  patients: Patient[],
  keys: { tenant_id: string; medical_institution_id: string; month: string }[],
): Promise<void> {
  if (patients.length > 0)
    await sql`
      INSERT INTO ${sql.table(t.referral_pending_patients)} (tenant_id, import_id, patient_key)
      SELECT tenant_id, ${importId}::uuid, patient_key
        FROM unnest(${sql.val(patients.map((p) => p.tenant_id))}::uuid[], ${sql.val(patients.map((p) => p.patient_key))}::text[])
          AS p(tenant_id, patient_key)
       WHERE EXISTS (SELECT 1 FROM ${sql.table(t.hospital_admissions)} a
                      WHERE a.tenant_id = p.tenant_id AND a.patient_key = p.patient_key)
      ON CONFLICT DO NOTHING`.execute(trx);
  const months = [...new Map(keys.map((k) => [`${k.tenant_id}|${k.medical_institution_id}|${k.month}`, k])).values()];
  if (months.length > 0)
    await sql`
      INSERT INTO ${sql.table(t.referral_pending_months)} (tenant_id, import_id, medical_institution_id, month)
      SELECT tenant_id, ${importId}::uuid, medical_institution_id, month
        FROM unnest(${sql.val(months.map((m) => m.tenant_id))}::uuid[], ${sql.val(months.map((m) => m.medical_institution_id))}::uuid[],
                    ${sql.val(months.map((m) => m.month))}::date[]) AS m(tenant_id, medical_institution_id, month)
      ON CONFLICT DO NOTHING`.execute(trx);
}

/**
 * One step of an import's deferred rollups. `link`: the pending patients hashing to the slice's bucket
 * are re-linked and the institution-months of their referrals become pending. `rollup`: the pending
 * institution-months hashing to the bucket are recomputed. The end: all that is left, linked then
 * recomputed. Every link slice comes before every rollup slice, so a month is recomputed after the
 * last link that changes it; what `recompute` does for any other change, in the same statements.
 */
async function runDeferredStep(trx: Transaction<unknown>, t: T, step: DeferredStep): Promise<void> {
  const { tenantId, importId, slice } = step;
  const inBucket = (key: ReturnType<typeof sql>) =>
    slice ? sql`AND mod(hashtext(${key})::bigint + 2147483648, ${slice.buckets}) = ${slice.bucket}` : sql``;
  if (!slice || slice.phase === 'link') {
    const { rows: patients } = await sql<Patient>`
      DELETE FROM ${sql.table(t.referral_pending_patients)} p
       WHERE p.tenant_id = ${tenantId} AND p.import_id = ${importId} ${inBucket(sql`p.patient_key`)}
      RETURNING p.tenant_id, p.patient_key`.execute(trx);
    const months = await relink(trx, t, patients, []);
    await notePending(trx, t, importId, [], months);
  }
  if (!slice || slice.phase === 'rollup') {
    const { rows: months } = await sql<InstitutionMonth>`
      DELETE FROM ${sql.table(t.referral_pending_months)} m
       WHERE m.tenant_id = ${tenantId} AND m.import_id = ${importId}
         ${inBucket(sql`m.medical_institution_id::text || to_char(m.month, 'YYYYMM')`)}
      RETURNING m.tenant_id, m.medical_institution_id, to_char(m.month, 'YYYY-MM-DD') AS month`.execute(trx);
    const bulk = await rollupMonths(trx, t, months);
    // A tenant summed again set-wise has every month of those 年度 summed from the facts and links as
    // they stand, this import's included (its links are all made: every link slice comes before the first
    // rollup slice). Its months in the other buckets are done, so their slices have nothing left to sum.
    // Other imports' months stay noted: their links may still be to make.
    if (slice)
      for (const [bulkTenant, range] of bulk)
        await sql`
          DELETE FROM ${sql.table(t.referral_pending_months)}
           WHERE tenant_id = ${bulkTenant} AND import_id = ${importId}
             AND month >= ${range.from}::date AND month < ${range.to}::date`.execute(trx);
  }
}

interface InstitutionMonth {
  tenant_id: string;
  medical_institution_id: string;
  month: string;
}

const visitOf = sql`CASE WHEN r.first_visit THEN 'first' WHEN NOT r.first_visit THEN 'return' ELSE 'unknown' END`;
const segmentOf = (column: string) =>
  sql`greatest(date_trunc('week', ${sql.ref(column)}::timestamp), date_trunc('month', ${sql.ref(column)}::timestamp))::date`;
/** The calendar spans of `referral_institution_rollups` holding the month `m` (a 年度 starts in April). */
const calendarSpans = (m: ReturnType<typeof sql>) => sql`
  VALUES ('month', date_trunc('month', ${m})::date),
         ('quarter', date_trunc('quarter', ${m})::date),
         ('fiscal_year', (date_trunc('year', ${m} - interval '3 months') + interval '3 months')::date)`;
/** The months from `m` to the March that ends its 年度. */
const monthsToMarchSql = (m: ReturnType<typeof sql>) =>
  sql`generate_series(date_trunc('month', ${m}), date_trunc('year', ${m} - interval '3 months') + interval '14 months', interval '1 month')`;
/**
 * Every span of `referral_institution_rollups` holding the month `m`: its month, quarter and 年度, and
 * each 年度-to-month total from `m` to March (`fiscal_year_to_month`, dated on the month it runs to).
 */
const institutionSpans = (m: ReturnType<typeof sql>) => sql`(
  ${calendarSpans(m)}
  UNION ALL
  SELECT 'fiscal_year_to_month', g::date FROM ${monthsToMarchSql(m)} g) s(span, period_start)`;

/**
 * Which facts a rollup statement reads: those of the institution-months in `g` (a batch), or those of
 * a tenant dated in a range (a bulk build). `alias.column` is the fact's date.
 */
type FactScope = (alias: string, column: string) => { join: ReturnType<typeof sql>; where: ReturnType<typeof sql> };
const monthsScope =
  (g: ReturnType<typeof sql>): FactScope =>
  (alias, column) => ({
    join: sql`JOIN ${g} ON ${sql.ref(`${alias}.tenant_id`)} = g.tenant_id AND ${sql.ref(`${alias}.medical_institution_id`)} = g.medical_institution_id
        AND ${sql.ref(`${alias}.${column}`)} >= g.month AND ${sql.ref(`${alias}.${column}`)} < (g.month + interval '1 month')::date`,
    where: sql``,
  });
const rangeScope =
  (tenantId: string, range: { from: string; to: string }): FactScope =>
  (alias, column) => ({
    join: sql``,
    where: sql`WHERE ${sql.ref(`${alias}.tenant_id`)} = ${tenantId} AND ${sql.ref(`${alias}.medical_institution_id`)} IS NOT NULL
          AND ${sql.ref(`${alias}.${column}`)} >= ${range.from}::date AND ${sql.ref(`${alias}.${column}`)} < ${range.to}::date`,
  });

/** The period rollup rows (referral_period_rollups' columns) of the facts in scope. */
function periodRowsOf(t: T, scope: FactScope) {
  const admitted = sql`EXISTS (SELECT 1 FROM ${sql.table(t.hospital_admissions)} a WHERE a.tenant_id = r.tenant_id AND a.referral_id = r.id)`;
  const operated = sql`EXISTS (SELECT 1 FROM ${sql.table(t.hospital_admissions)} a WHERE a.tenant_id = r.tenant_id AND a.referral_id = r.id AND a.kcode IS NOT NULL)`;
  return sql`
    SELECT tenant_id, medical_institution_id, own_department_id, referral_department, visit, segment,
           sum(referrals)::int AS referral_count, sum(admitted)::int AS admitted_count, sum(operated)::int AS operated_count,
           sum(reverse)::int AS reverse_referral_count
      FROM (
        SELECT r.tenant_id, r.medical_institution_id, coalesce(r.own_department_id, ${noDepartment}::uuid) AS own_department_id,
               coalesce(r.from_department, '') AS referral_department, ${visitOf} AS visit, ${segmentOf('r.referral_date')} AS segment,
               1 AS referrals, (${admitted})::int AS admitted, (${operated})::int AS operated, 0 AS reverse
          FROM ${sql.table(t.referrals)} r ${scope('r', 'referral_date').join} ${scope('r', 'referral_date').where}
        UNION ALL
        SELECT v.tenant_id, v.medical_institution_id, coalesce(v.own_department_id, ${noDepartment}::uuid), '', 'unknown',
               ${segmentOf('v.reverse_referral_date')}, 0, 0, 0, 1
          FROM ${sql.table(t.reverse_referrals)} v ${scope('v', 'reverse_referral_date').join} ${scope('v', 'reverse_referral_date').where}) f
     GROUP BY tenant_id, medical_institution_id, own_department_id, referral_department, visit, segment`;
}

/** The case-mix rollup rows (referral_case_rollups' columns) of the referrals in scope. */
function caseRowsOf(t: T, scope: FactScope) {
  return sql`
    SELECT r.tenant_id, r.medical_institution_id, coalesce(r.own_department_id, ${noDepartment}::uuid) AS own_department_id,
           coalesce(r.from_department, '') AS referral_department, ${visitOf} AS visit, coalesce(left(s.dpc_code, 2), '') AS mdc,
           coalesce(o.kcode, '') AS kcode, date_trunc('month', r.referral_date)::date AS month,
           count(*)::int AS referral_count, count(s.found)::int AS admitted_count, count(o.kcode)::int AS operated_count
      FROM ${sql.table(t.referrals)} r ${scope('r', 'referral_date').join}
      LEFT JOIN LATERAL (
        SELECT true AS found, a.dpc_code FROM ${sql.table(t.hospital_admissions)} a
         WHERE a.tenant_id = r.tenant_id AND a.referral_id = r.id ORDER BY a.admission_date, a.id LIMIT 1) s ON true
      LEFT JOIN LATERAL (
        SELECT a.kcode FROM ${sql.table(t.hospital_admissions)} a
         WHERE a.tenant_id = r.tenant_id AND a.referral_id = r.id AND a.kcode IS NOT NULL
         ORDER BY a.admission_date, a.id LIMIT 1) o ON true
     ${scope('r', 'referral_date').where}
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8`;
}

const periodColumns = sql.raw(
  'tenant_id, medical_institution_id, own_department_id, referral_department, visit, segment, referral_count, admitted_count, operated_count, reverse_referral_count',
);
const caseColumns = sql.raw(
  'tenant_id, medical_institution_id, own_department_id, referral_department, visit, mdc, kcode, month, referral_count, admitted_count, operated_count',
);
const addCounts = (columns: string[]) =>
  sql.raw(`DO UPDATE SET ${columns.map((c) => `${c} = cur.${c} + excluded.${c}`).join(', ')}`);
const fourCounts = ['referral_count', 'admitted_count', 'operated_count', 'reverse_referral_count'];
const threeCounts = ['referral_count', 'admitted_count', 'operated_count'];

/**
 * The rollups of whole institution-months, kept incrementally: the period and case-mix rows of each
 * institution-month are deleted and summed again from its facts (a row's dimensions — referral
 * department, visit, case mix — can change with a re-upload or a late stay, so recomputing the
 * institution-month is simpler than patching it), and what changed between the rows deleted and the
 * rows written is added, as deltas, to the sums over institutions (per tenant) and over months (per
 * institution: month, quarter, 年度), whose rows left at zero are removed. One statement per step
 * whatever the batch's size, and no step reads more than the institution-months touched: the sums of
 * a tenant or an institution are never re-summed from all its rows (per 500-row chunk that made an
 * import quadratic in the tenant's data). The monthly rollups (per own department) are the period
 * rows of each institution-month summed by month.
 */
async function rollupInstitutionMonths(trx: Transaction<unknown>, t: T, months: InstitutionMonth[]): Promise<void> {
  // Arrays rather than a JSON set: the planner knows their length, and reads them once.
  const g = sql`unnest(${sql.val(months.map((m) => m.tenant_id))}::uuid[], ${sql.val(months.map((m) => m.medical_institution_id))}::uuid[],
    ${sql.val(months.map((m) => m.month))}::date[]) AS g(tenant_id, medical_institution_id, month)`;
  const inMonth = (alias: string, column: string) =>
    sql`${sql.ref(`${alias}.tenant_id`)} = g.tenant_id AND ${sql.ref(`${alias}.medical_institution_id`)} = g.medical_institution_id
        AND ${sql.ref(`${alias}.${column}`)} >= g.month AND ${sql.ref(`${alias}.${column}`)} < (g.month + interval '1 month')::date`;
  const tenantPeriodKey = 'tenant_id, own_department_id, referral_department, visit, segment';
  const tenantCaseKey = 'tenant_id, own_department_id, referral_department, visit, mdc, kcode, month';
  const sums = (columns: string[], sign: '' | '-') => sql.raw(columns.map((c) => `${sign}sum(${c})::int`).join(', '));
  /** The deltas of `rows` (old rows with '-', new ones with '') into the per-tenant and per-institution sums. */
  const periodDeltas = (rows: string, sign: '' | '-') => sql`
    tenant_delta AS (
      INSERT INTO ${sql.table(t.referral_tenant_period_rollups)} AS cur (${sql.raw(tenantPeriodKey)}, ${sql.raw(fourCounts.join(', '))})
      SELECT ${sql.raw(tenantPeriodKey)}, ${sums(fourCounts, sign)} FROM ${sql.raw(rows)} GROUP BY ${sql.raw(tenantPeriodKey)}
      ON CONFLICT (${sql.raw(tenantPeriodKey)}) ${addCounts(fourCounts)})
    INSERT INTO ${sql.table(t.referral_institution_rollups)} AS cur
      (tenant_id, medical_institution_id, span, period_start, ${sql.raw(fourCounts.join(', '))})
    SELECT x.tenant_id, x.medical_institution_id, s.span, s.period_start, ${sql.raw(fourCounts.map((c) => `${sign}sum(x.${c})::int`).join(', '))}
      FROM ${sql.raw(rows)} x CROSS JOIN LATERAL ${institutionSpans(sql`x.segment`)}
     GROUP BY x.tenant_id, x.medical_institution_id, s.span, s.period_start
    ON CONFLICT (tenant_id, medical_institution_id, span, period_start) ${addCounts(fourCounts)}`;

  await sql`
    WITH old AS (
      DELETE FROM ${sql.table(t.referral_period_rollups)} p USING ${g} WHERE ${inMonth('p', 'segment')} RETURNING p.*),
    monthly AS (
      DELETE FROM ${sql.table(t.referral_monthly_rollups)} m USING ${g}
       WHERE m.tenant_id = g.tenant_id AND m.medical_institution_id = g.medical_institution_id AND m.month = g.month),
    ${periodDeltas('old', '-')}`.execute(trx);
  await sql`
    WITH new AS (
      INSERT INTO ${sql.table(t.referral_period_rollups)} (${periodColumns})
      ${periodRowsOf(t, monthsScope(g))}
      RETURNING *),
    monthly AS (
      INSERT INTO ${sql.table(t.referral_monthly_rollups)}
        (tenant_id, medical_institution_id, own_department_id, month, referral_count, first_visit_count, admitted_count, operated_count, reverse_referral_count)
      SELECT tenant_id, medical_institution_id, own_department_id, date_trunc('month', segment)::date,
             sum(referral_count)::int, coalesce(sum(referral_count) FILTER (WHERE visit = 'first'), 0)::int, sum(admitted_count)::int,
             sum(operated_count)::int, sum(reverse_referral_count)::int
        FROM new GROUP BY 1, 2, 3, 4),
    ${periodDeltas('new', '')}`.execute(trx);

  await sql`
    WITH old AS (
      DELETE FROM ${sql.table(t.referral_case_rollups)} c USING ${g}
       WHERE c.tenant_id = g.tenant_id AND c.medical_institution_id = g.medical_institution_id AND c.month = g.month
      RETURNING c.*)
    INSERT INTO ${sql.table(t.referral_tenant_case_rollups)} AS cur (${sql.raw(tenantCaseKey)}, ${sql.raw(threeCounts.join(', '))})
    SELECT ${sql.raw(tenantCaseKey)}, ${sums(threeCounts, '-')} FROM old GROUP BY ${sql.raw(tenantCaseKey)}
    ON CONFLICT (${sql.raw(tenantCaseKey)}) ${addCounts(threeCounts)}`.execute(trx);
  await sql`
    WITH new AS (
      INSERT INTO ${sql.table(t.referral_case_rollups)} (${caseColumns})
      ${caseRowsOf(t, monthsScope(g))}
      RETURNING *)
    INSERT INTO ${sql.table(t.referral_tenant_case_rollups)} AS cur (${sql.raw(tenantCaseKey)}, ${sql.raw(threeCounts.join(', '))})
    SELECT ${sql.raw(tenantCaseKey)}, ${sums(threeCounts, '')} FROM new GROUP BY ${sql.raw(tenantCaseKey)}
    ON CONFLICT (${sql.raw(tenantCaseKey)}) ${addCounts(threeCounts)}`.execute(trx);

  // Sums that fell to zero (their facts moved or went) are no rows, as a fresh build leaves them. The
  // keys are listed here and looked up by primary key: a join on the JSON set above was re-read per row.
  const tenantMonths = new Map<string, { tenant_id: string; month: string }>();
  const spans = new Map<string, { tenant_id: string; medical_institution_id: string; span: string; start: string }>();
  for (const m of months) {
    tenantMonths.set(`${m.tenant_id}|${m.month}`, { tenant_id: m.tenant_id, month: m.month });
    const monthNumber = Number(m.month.slice(5, 7));
    const quarter = `${m.month.slice(0, 5)}${String(monthNumber - ((monthNumber - 1) % 3)).padStart(2, '0')}-01`;
    for (const [span, start] of [
      ['month', m.month],
      ['quarter', quarter],
      ['fiscal_year', fiscalYearStart(m.month)],
      ...monthsToMarch(m.month).map((month) => ['fiscal_year_to_month', month] as const),
    ] as const)
      spans.set(`${m.tenant_id}|${m.medical_institution_id}|${span}|${start}`, {
        tenant_id: m.tenant_id,
        medical_institution_id: m.medical_institution_id,
        span,
        start,
      });
  }
  const tm = [...tenantMonths.values()];
  const tenantMonthKeys = sql`unnest(${sql.val(tm.map((k) => k.tenant_id))}::uuid[], ${sql.val(tm.map((k) => k.month))}::date[]) AS g(tenant_id, month)`;
  const zero = (columns: string[], alias: string) => sql.raw(columns.map((c) => `${alias}.${c} = 0`).join(' AND '));
  await sql`
    DELETE FROM ${sql.table(t.referral_tenant_period_rollups)} p USING ${tenantMonthKeys}
     WHERE p.tenant_id = g.tenant_id AND p.segment >= g.month AND p.segment < (g.month + interval '1 month')::date
       AND ${zero(fourCounts, 'p')}`.execute(trx);
  await sql`
    DELETE FROM ${sql.table(t.referral_tenant_case_rollups)} c USING ${tenantMonthKeys}
     WHERE c.tenant_id = g.tenant_id AND c.month = g.month AND ${zero(threeCounts, 'c')}`.execute(trx);
  const sk = [...spans.values()];
  await sql`
    DELETE FROM ${sql.table(t.referral_institution_rollups)} i
     USING unnest(${sql.val(sk.map((k) => k.tenant_id))}::uuid[], ${sql.val(sk.map((k) => k.medical_institution_id))}::uuid[],
                  ${sql.val(sk.map((k) => k.span))}::text[], ${sql.val(sk.map((k) => k.start))}::date[]) AS k(tenant_id, medical_institution_id, span, period_start)
     WHERE i.tenant_id = k.tenant_id AND i.medical_institution_id = k.medical_institution_id
       AND i.span = k.span AND i.period_start = k.period_start AND ${zero(fourCounts, 'i')}`.execute(trx);
}

/**
 * The analysis rollups of a tenant's facts dated in [from, to), built set-wise (a statement per table
 * over the range, no per-institution-month step): for facts written in bulk beside the events (the
 * analysis bench). The range must be whole 年度 or the rollups outside it current: the per-institution
 * quarter and 年度 rows are summed over the whole 年度 holding the range.
 */
export async function rebuildTenantAnalysisRollups(
  trx: Transaction<unknown>,
  t: T,
  tenantId: string,
  range: { from: string; to: string },
): Promise<void> {
  const scope = rangeScope(tenantId, range);
  const inRange = (column: string) =>
    sql`tenant_id = ${tenantId} AND ${sql.ref(column)} >= ${range.from}::date AND ${sql.ref(column)} < ${range.to}::date`;
  await sql`DELETE FROM ${sql.table(t.referral_period_rollups)} WHERE ${inRange('segment')}`.execute(trx);
  await sql`INSERT INTO ${sql.table(t.referral_period_rollups)} (${periodColumns}) ${periodRowsOf(t, scope)}`.execute(
    trx,
  );
  await sql`DELETE FROM ${sql.table(t.referral_case_rollups)} WHERE ${inRange('month')}`.execute(trx);
  await sql`INSERT INTO ${sql.table(t.referral_case_rollups)} (${caseColumns}) ${caseRowsOf(t, scope)}`.execute(trx);
  await sql`DELETE FROM ${sql.table(t.referral_tenant_period_rollups)} WHERE ${inRange('segment')}`.execute(trx);
  await sql`
    INSERT INTO ${sql.table(t.referral_tenant_period_rollups)}
      (tenant_id, own_department_id, referral_department, visit, segment, ${sql.raw(fourCounts.join(', '))})
    SELECT tenant_id, own_department_id, referral_department, visit, segment, ${sql.raw(fourCounts.map((c) => `sum(${c})::int`).join(', '))}
      FROM ${sql.table(t.referral_period_rollups)} WHERE ${inRange('segment')} GROUP BY 1, 2, 3, 4, 5`.execute(trx);
  await sql`DELETE FROM ${sql.table(t.referral_tenant_case_rollups)} WHERE ${inRange('month')}`.execute(trx);
  await sql`
    INSERT INTO ${sql.table(t.referral_tenant_case_rollups)}
      (tenant_id, own_department_id, referral_department, visit, mdc, kcode, month, ${sql.raw(threeCounts.join(', '))})
    SELECT tenant_id, own_department_id, referral_department, visit, mdc, kcode, month, ${sql.raw(threeCounts.map((c) => `sum(${c})::int`).join(', '))}
      FROM ${sql.table(t.referral_case_rollups)} WHERE ${inRange('month')} GROUP BY 1, 2, 3, 4, 5, 6, 7`.execute(trx);
  await sql`DELETE FROM ${sql.table(t.referral_monthly_rollups)} WHERE ${inRange('month')}`.execute(trx);
  await sql`
    INSERT INTO ${sql.table(t.referral_monthly_rollups)}
      (tenant_id, medical_institution_id, own_department_id, month, referral_count, first_visit_count, admitted_count, operated_count, reverse_referral_count)
    SELECT tenant_id, medical_institution_id, own_department_id, date_trunc('month', segment)::date,
           sum(referral_count)::int, coalesce(sum(referral_count) FILTER (WHERE visit = 'first'), 0)::int, sum(admitted_count)::int,
           sum(operated_count)::int, sum(reverse_referral_count)::int
      FROM ${sql.table(t.referral_period_rollups)} WHERE ${inRange('segment')} GROUP BY 1, 2, 3, 4`.execute(trx);
  await rebuildTenantInstitutionRollups(trx, t, tenantId, range);
}

/** The first days of the months from `month` (a first day) to the March that ends its 年度. */
function monthsToMarch(month: string): string[] {
  const out: string[] = [];
  let [year, m] = [Number(month.slice(0, 4)), Number(month.slice(5, 7))];
  for (;;) {
    out.push(`${year}-${String(m).padStart(2, '0')}-01`);
    if (m === 3) return out;
    [year, m] = m === 12 ? [year + 1, 1] : [year, m + 1];
  }
}

/** The first day of the 年度 (April to March) holding `isoDate`. */
function fiscalYearStart(isoDate: string): string {
  const year = Number(isoDate.slice(0, 4)) - (Number(isoDate.slice(5, 7)) < 4 ? 1 : 0);
  return `${year}-04-01`;
}

/**
 * `referral_institution_rollups` of a tenant over the 年度 that [from, to) touches, in one set-wise
 * statement from the period rollups (each period row counted once per span holding it). Widened to
 * whole 年度 so a quarter or 年度 row is never summed from part of its months. Deriving the spans
 * institution-month by institution-month did not finish at 5,000,000 referrals.
 */
async function rebuildTenantInstitutionRollups(
  trx: Transaction<unknown>,
  t: T,
  tenantId: string,
  range: { from: string; to: string },
): Promise<void> {
  const { from, to } = wholeFiscalYears(range);
  await sql`
    DELETE FROM ${sql.table(t.referral_institution_rollups)}
     WHERE tenant_id = ${tenantId} AND period_start >= ${from}::date AND period_start < ${to}::date`.execute(trx);
  await sql`
    INSERT INTO ${sql.table(t.referral_institution_rollups)}
      (tenant_id, medical_institution_id, span, period_start, ${sql.raw(fourCounts.join(', '))})
    SELECT p.tenant_id, p.medical_institution_id, s.span, s.period_start, ${sql.raw(fourCounts.map((c) => `sum(p.${c})::int`).join(', '))}
      FROM ${sql.table(t.referral_period_rollups)} p CROSS JOIN LATERAL (${calendarSpans(sql`p.segment`)}) s(span, period_start)
     WHERE p.tenant_id = ${tenantId} AND p.segment >= ${from}::date AND p.segment < ${to}::date
     GROUP BY p.tenant_id, p.medical_institution_id, s.span, s.period_start`.execute(trx);
  // The delete above took the 年度-to-month rows of these 年度 too.
  await insertYearToMonthRows(trx, t, tenantId, { from, to });
}

/** [from, to) widened to whole 年度. */
function wholeFiscalYears(range: { from: string; to: string }): { from: string; to: string } {
  const lastDay = new Date(Date.parse(`${range.to}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
  return { from: fiscalYearStart(range.from), to: `${Number(fiscalYearStart(lastDay).slice(0, 4)) + 1}-04-01` };
}

/**
 * The `fiscal_year_to_month` rows of a tenant over the whole 年度 that [from, to) touches, from its
 * month rows (which must be current): each month's figures added to every total from it to March.
 * Also run alone on a bench database built before these rows existed.
 */
export async function rebuildTenantYearToMonthRollups(
  trx: Transaction<unknown>,
  t: Pick<T, 'referral_institution_rollups'>,
  tenantId: string,
  range: { from: string; to: string },
): Promise<void> {
  const { from, to } = wholeFiscalYears(range);
  await sql`
    DELETE FROM ${sql.table(t.referral_institution_rollups)}
     WHERE tenant_id = ${tenantId} AND span = 'fiscal_year_to_month' AND period_start >= ${from}::date AND period_start < ${to}::date`.execute(
    trx,
  );
  await insertYearToMonthRows(trx, t, tenantId, { from, to });
}

/** The `fiscal_year_to_month` rows of whole 年度 [from, to), none of which may be there. */
async function insertYearToMonthRows(
  trx: Transaction<unknown>,
  t: Pick<T, 'referral_institution_rollups'>,
  tenantId: string,
  { from, to }: { from: string; to: string },
): Promise<void> {
  await sql`
    INSERT INTO ${sql.table(t.referral_institution_rollups)}
      (tenant_id, medical_institution_id, span, period_start, ${sql.raw(fourCounts.join(', '))})
    SELECT p.tenant_id, p.medical_institution_id, 'fiscal_year_to_month', g::date, ${sql.raw(fourCounts.map((c) => `sum(p.${c})::int`).join(', '))}
      FROM ${sql.table(t.referral_institution_rollups)} p CROSS JOIN LATERAL ${monthsToMarchSql(sql`p.period_start`)} g
     WHERE p.tenant_id = ${tenantId} AND p.span = 'month' AND p.period_start >= ${from}::date AND p.period_start < ${to}::date
     GROUP BY p.tenant_id, p.medical_institution_id, g`.execute(trx);
}

/**
 * Distinct unknown department names an import record keeps (most rows first): a list of free text
 * could otherwise grow with the file. The page shows fewer (the contract's maxUnknownDepartments).
 */
const maxStoredUnknownDepartments = 200;

async function applyImportPatches(trx: Transaction<unknown>, t: T, patches: ImportPatch[]): Promise<void> {
  if (patches.length === 0) return;
  const rows = patches.map((p) => ({
    tenant_id: p.tenant_id,
    id: p.id,
    status: p.status,
    total_row_count: p.total_row_count,
    imported: p.imported,
    failed: p.failed,
    new_records: p.new_records,
    updated: p.updated,
    unchanged: p.unchanged,
    unmatched: p.unmatched,
    unmatched_institutions: p.unmatched_institutions,
    unknown_departments: p.unknown_departments,
    unknown_department_names: p.unknown_department_names,
    errors: p.errors,
    finished: p.finished !== null,
    final_imported: p.finished?.imported ?? null,
    final_failed: p.finished?.failed ?? null,
    final_unprocessed: p.finished?.unprocessed ?? null,
    abortion: p.finished?.abortion ?? null,
  }));
  await sql`
    UPDATE ${sql.table(t.referral_data_imports)} AS i SET
      status = coalesce(p.status, i.status),
      total_row_count = coalesce(p.total_row_count, i.total_row_count),
      imported_row_count = CASE WHEN p.finished THEN p.final_imported ELSE i.imported_row_count + p.imported END,
      failed_row_count = CASE WHEN p.finished THEN p.final_failed ELSE i.failed_row_count + p.failed END,
      unprocessed_row_count = CASE WHEN p.finished THEN p.final_unprocessed
        ELSE greatest(coalesce(p.total_row_count, i.total_row_count) - i.imported_row_count - i.failed_row_count - p.imported - p.failed, 0) END,
      abortion_row_number = CASE WHEN p.finished THEN p.abortion ELSE i.abortion_row_number END,
      new_record_count = i.new_record_count + p.new_records,
      updated_record_count = i.updated_record_count + p.updated,
      unchanged_record_count = i.unchanged_record_count + p.unchanged,
      unmatched_row_count = i.unmatched_row_count + p.unmatched,
      unmatched_institutions = (
        SELECT coalesce(jsonb_object_agg(key, total), '{}'::jsonb) FROM (
          SELECT key, sum(value::int) AS total FROM (
            SELECT * FROM jsonb_each_text(i.unmatched_institutions) UNION ALL SELECT * FROM jsonb_each_text(p.unmatched_institutions)) e
          GROUP BY key) s),
      unknown_department_row_count = i.unknown_department_row_count + p.unknown_departments,
      unknown_departments = (
        SELECT coalesce(jsonb_object_agg(key, total), '{}'::jsonb) FROM (
          SELECT key, sum(value::int) AS total FROM (
            SELECT * FROM jsonb_each_text(i.unknown_departments) UNION ALL SELECT * FROM jsonb_each_text(p.unknown_department_names)) e
          GROUP BY key ORDER BY total DESC, key LIMIT ${maxStoredUnknownDepartments}) s),
      error_messages = i.error_messages || p.errors
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS p(
        tenant_id uuid, id uuid, status text, total_row_count int, imported int, failed int, new_records int, updated int,
        unchanged int, unmatched int, unmatched_institutions jsonb, unknown_departments int, unknown_department_names jsonb, errors jsonb, finished boolean, final_imported int,
        final_failed int, final_unprocessed int, abortion int)
     WHERE i.tenant_id = p.tenant_id AND i.id = p.id`.execute(trx);
}
