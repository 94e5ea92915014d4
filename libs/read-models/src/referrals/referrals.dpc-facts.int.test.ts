import { randomUUID } from 'node:crypto';
import { describe, it } from 'vitest';
import { projectionTest } from '@renkei/projections/testing';
import type { HospitalAdmissionFact, ReferralFact, StayClaimFact, StayProcedureFact } from '@renkei/domain';
import { referralsProjection } from './referrals.projection.ts';

const test = projectionTest(referralsProjection);
const clinic = randomUUID();
const lists = randomUUID();
const ff1Import = randomUUID();
const efImport = randomUUID();
const efAgain = randomUUID();
const dImport = randomUUID();
const facility = '221234567';

const referral: ReferralFact = {
  identity: 'referral:1',
  row_number: 2,
  referral_date: '2024-04-10',
  patient_id: '00123',
  patient_key: '123',
  medical_institution_id: clinic,
  institution_code: '2210110009',
  institution_name: '駿河クリニック',
  from_department: null,
  from_doctor: null,
  to_department: '外科',
  own_department_id: null,
  to_doctor: null,
  purpose: null,
  first_visit: true,
  source_id: null,
};
/** An FF1 stay without A007010 (no operation in the abstract) and without D's DPC code. */
const ff1Stay = (over: Partial<HospitalAdmissionFact> = {}): HospitalAdmissionFact => ({
  identity: `${facility}|123|20240420|1`,
  patient_key: '123',
  admission_date: '2024-04-20',
  discharge_date: '2024-04-30',
  department_code: '100',
  icd10_code: 'K359',
  icd10_name: '急性虫垂炎',
  kcode: null,
  operation_name: null,
  operation_date: null,
  anesthesia: null,
  dpc_code: null,
  dpc_name: null,
  scores: {},
  admission_route_code: null,
  referral_in: true,
  discharge_destination_code: null,
  discharge_outcome_code: null,
  ...over,
});
const key = { facility_code: facility, patient_key: '123', admission_date: '2024-04-20' };
const operation: StayProcedureFact = {
  ...key,
  identity: `${facility}|123|20240420|operation|2024-04-21|K718-21`,
  kind: 'operation',
  date: '2024-04-21',
  code: 'K718-21',
  name: '腹腔鏡下虫垂切除術',
};
const anesthesia: StayProcedureFact = {
  ...key,
  identity: `${facility}|123|20240420|anesthesia|2024-04-21|L008`,
  kind: 'anesthesia',
  date: '2024-04-21',
  code: 'L008',
  name: '閉鎖循環式全身麻酔',
};
const efStay: StayClaimFact = {
  ...key,
  source: 'ef',
  discharge_date: '2024-04-30',
  department_code: '100',
  dpc_code: null,
  dpc_period_end: null,
};
const chunk = { chunk: 0, failed_row_count: 0, errors: [] };
const requested = (importId: string, importType: string) => ({
  type: 'ReferralDataImportRequested',
  data: { import_id: importId, import_type: importType, filename: 'x.txt', stored_path: '/x', mapping: null },
});
const referrals = {
  type: 'ReferralsImported',
  data: { ...chunk, import_id: lists, imported_row_count: 1, referrals: [referral] },
};
const ff1 = (admissions: HospitalAdmissionFact[]) => ({
  type: 'HospitalAdmissionsImported',
  data: { ...chunk, import_id: ff1Import, imported_row_count: 20, admissions },
});
const ef = (importId: string, procedures: StayProcedureFact[], stays = [efStay]) => ({
  type: 'DpcFactsImported',
  data: { ...chunk, import_id: importId, imported_row_count: 40, stays, procedures, visits: [] },
});
const operated = { kcode: 'K718-21', operation_name: '腹腔鏡下虫垂切除術', anesthesia: '閉鎖循環式全身麻酔' };

describe('referrals projection: D and EF facts', () => {
  it('puts an EF operation uploaded before its FF1 on the stay once the FF1 arrives, and the rollups count it operated', async () => {
    const scenario = test.given(
      [referrals],
      [requested(efImport, 'hospital_admission_ef_file'), ef(efImport, [operation, anesthesia])],
      [ff1([ff1Stay()])],
    );
    await scenario.thenRows('hospital_admissions', [{ ...operated, operation_date: new Date('2024-04-21') }]);
    await scenario.thenRows('referral_monthly_rollups', [{ referral_count: 1, admitted_count: 1, operated_count: 1 }]);
    await scenario.thenRows('referral_period_rollups', [{ referral_count: 1, admitted_count: 1, operated_count: 1 }]);
    await scenario.thenRows('referral_data_imports', [
      { id: efImport, imported_row_count: 40, new_record_count: 3, updated_record_count: 0, unchanged_record_count: 0 },
    ]);
  });

  it('puts an EF operation uploaded after the FF1 on the stay: the rollups turn operated', async () => {
    const before = test.given([referrals], [ff1([ff1Stay()])]);
    await before.thenRows('referral_monthly_rollups', [{ referral_count: 1, admitted_count: 1, operated_count: 0 }]);
    const after = test.given([referrals], [ff1([ff1Stay()])], [ef(efImport, [operation, anesthesia])]);
    await after.thenRows('hospital_admissions', [operated]);
    await after.thenRows('referral_monthly_rollups', [{ referral_count: 1, admitted_count: 1, operated_count: 1 }]);
    await after.thenRows('referral_case_rollups', [{ kcode: 'K718-21', operated_count: 1 }]);
  });

  it('re-uploading an EF changes nothing and doubles nothing; the same operation on two detail rows is one', async () => {
    const scenario = test.given(
      [referrals, ff1([ff1Stay()])],
      [requested(efImport, 'hospital_admission_ef_file'), ef(efImport, [operation, anesthesia, operation])],
      [requested(efAgain, 'hospital_admission_ef_file'), ef(efAgain, [operation, anesthesia])],
    );
    await scenario.thenRows('dpc_stay_procedures', [{ code: 'K718-21' }, { code: 'L008' }]);
    await scenario.thenRows('referral_data_imports', [
      { id: efImport, new_record_count: 3, updated_record_count: 0, unchanged_record_count: 1 },
      { id: efAgain, new_record_count: 0, updated_record_count: 0, unchanged_record_count: 3 },
    ]);
    await scenario.thenRows('referral_monthly_rollups', [{ referral_count: 1, admitted_count: 1, operated_count: 1 }]);
  });

  it("keeps FF1's A007010 over EF's operation, and takes EF's anesthesia when FF1 has none", async () => {
    const scenario = test.given(
      [referrals, ff1([ff1Stay({ kcode: 'K6335', operation_name: '鼠径ヘルニア手術', operation_date: '2024-04-22' })])],
      [ef(efImport, [operation, { ...anesthesia, date: '2024-04-22', identity: 'an:22' }])],
    );
    await scenario.thenRows('hospital_admissions', [
      { kcode: 'K6335', operation_name: '鼠径ヘルニア手術', anesthesia: '閉鎖循環式全身麻酔' },
    ]);
  });

  it('takes the DPC code from D (the latest 算定 period), whichever comes first, and only for the lowest 回数管理番号 of the day', async () => {
    const d = (code: string, end: string) => ({
      ...key,
      source: 'd' as const,
      discharge_date: null,
      department_code: null,
      dpc_code: code,
      dpc_period_end: end,
    });
    const scenario = test.given(
      [
        {
          type: 'DpcFactsImported',
          data: {
            ...chunk,
            import_id: dImport,
            imported_row_count: 2,
            stays: [d('060150xx03xxxx', '2024-04-30'), d('060150xx99xxxx', '2024-04-25')],
            procedures: [],
            visits: [],
          },
        },
      ],
      [ff1([ff1Stay(), ff1Stay({ identity: `${facility}|123|20240420|2`, discharge_date: null })])],
    );
    await scenario.thenRows('hospital_admissions', [
      { identity: `${facility}|123|20240420|1`, dpc_code: '060150xx03xxxx' },
      { identity: `${facility}|123|20240420|2`, dpc_code: null },
    ]);
  });

  it('a stay of another facility or day takes nothing, and a changed FF1 keeps the EF operation', async () => {
    const scenario = test.given(
      [referrals, ff1([ff1Stay({ identity: `999999999|123|20240420|1` })])],
      [ef(efImport, [operation])],
      [ff1([ff1Stay(), ff1Stay({ identity: `${facility}|123|20240420|1`, icd10_name: '虫垂炎' })])],
    );
    await scenario.thenRows('hospital_admissions', [
      { identity: `999999999|123|20240420|1`, kcode: null, icd10_name: '急性虫垂炎' },
      { identity: `${facility}|123|20240420|1`, kcode: 'K718-21', icd10_name: '虫垂炎' },
    ]);
  });
});
