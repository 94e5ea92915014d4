import { randomUUID } from 'node:crypto';
import { describe, it } from 'vitest';
import { projectionTest } from '@renkei/projections/testing';
import type { HospitalAdmissionFact, ReferralFact } from '@renkei/domain';
import { noDepartment, referralsProjection } from './referrals.projection.ts';

const test = projectionTest(referralsProjection);
const clinic = randomUUID();
const importA = randomUUID();
const importB = randomUUID();

const referral = (over: Partial<ReferralFact>): ReferralFact => ({
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
  ...over,
});
const stay = (over: Partial<HospitalAdmissionFact>): HospitalAdmissionFact => ({
  identity: '1|123|20240420|0',
  patient_key: '123',
  admission_date: '2024-04-20',
  discharge_date: '2024-04-30',
  department_code: '100',
  icd10_code: 'K359',
  icd10_name: '急性虫垂炎',
  kcode: 'K718-21',
  operation_name: '腹腔鏡下虫垂切除術',
  operation_date: '2024-04-21',
  anesthesia: 'L008',
  dpc_code: null,
  dpc_name: null,
  scores: {},
  admission_route_code: null,
  referral_in: true,
  discharge_destination_code: null,
  discharge_outcome_code: null,
  ...over,
});
const requested = (importId: string, importType: string) => ({
  type: 'ReferralDataImportRequested',
  data: { import_id: importId, import_type: importType, filename: 'x.csv', stored_path: '/x', mapping: null },
});
const chunk = { chunk: 0, failed_row_count: 0, errors: [] };

describe('referrals projection', () => {
  it('counts a re-upload as already present or updated, never twice', async () => {
    const first = [
      referral({}),
      referral({ identity: 'referral:2', medical_institution_id: null, institution_code: null }),
    ];
    const again = [
      referral({ purpose: '精査' }),
      referral({ identity: 'referral:2', medical_institution_id: null, institution_code: null }),
    ];
    const scenario = test.given(
      [
        requested(importA, 'referral'),
        { type: 'ReferralsImported', data: { ...chunk, import_id: importA, imported_row_count: 2, referrals: first } },
      ],
      [
        requested(importB, 'referral'),
        { type: 'ReferralsImported', data: { ...chunk, import_id: importB, imported_row_count: 2, referrals: again } },
      ],
    );
    await scenario.thenRows('referral_data_imports', [
      { id: importA, new_record_count: 2, updated_record_count: 0, unchanged_record_count: 0, unmatched_row_count: 1 },
      { id: importB, new_record_count: 0, updated_record_count: 1, unchanged_record_count: 1, unmatched_row_count: 1 },
    ]);
    await scenario.thenRows('referrals', [
      { identity: 'referral:1', purpose: '精査' },
      { identity: 'referral:2', purpose: null },
    ]);
    await scenario.thenRows('referral_monthly_rollups', [
      {
        medical_institution_id: clinic,
        own_department_id: noDepartment,
        referral_count: 1,
        first_visit_count: 1,
        admitted_count: 0,
        reverse_referral_count: 0,
      },
    ]);
  });

  it('links a stay uploaded after the referral, and a referral uploaded after the stay', async () => {
    const late = test.given(
      [
        {
          type: 'ReferralsImported',
          data: { ...chunk, import_id: importA, imported_row_count: 1, referrals: [referral({})] },
        },
      ],
      [
        {
          type: 'HospitalAdmissionsImported',
          data: { ...chunk, import_id: importB, imported_row_count: 9, admissions: [stay({})] },
        },
      ],
    );
    await late.thenRows('referral_monthly_rollups', [{ referral_count: 1, admitted_count: 1, operated_count: 1 }]);
    const early = test.given(
      [
        {
          type: 'HospitalAdmissionsImported',
          data: { ...chunk, import_id: importB, imported_row_count: 9, admissions: [stay({})] },
        },
      ],
      [
        {
          type: 'ReferralsImported',
          data: { ...chunk, import_id: importA, imported_row_count: 1, referrals: [referral({})] },
        },
      ],
    );
    await early.thenRows('referral_monthly_rollups', [{ referral_count: 1, admitted_count: 1, operated_count: 1 }]);
  });

  it('links a stay to the latest qualifying referral only, and not beyond 90 days', async () => {
    const scenario = test.given([
      {
        type: 'ReferralsImported',
        data: {
          ...chunk,
          import_id: importA,
          imported_row_count: 2,
          referrals: [
            referral({ identity: 'r:old', referral_date: '2024-03-01' }),
            referral({ identity: 'r:new', referral_date: '2024-04-01' }),
          ],
        },
      },
      {
        type: 'HospitalAdmissionsImported',
        data: {
          ...chunk,
          import_id: importB,
          imported_row_count: 2,
          admissions: [
            stay({ identity: 's:1', admission_date: '2024-04-20' }),
            stay({ identity: 's:2', admission_date: '2024-07-01', kcode: null }),
          ],
        },
      },
    ]);
    await scenario.thenRows('referral_monthly_rollups', [
      { month: new Date('2024-03-01'), referral_count: 1, admitted_count: 0, operated_count: 0 },
      { month: new Date('2024-04-01'), referral_count: 1, admitted_count: 1, operated_count: 1 },
    ]);
  });

  it('attributes unmatched rows matched by hand, then the same name in a later import, and re-points a changed match', async () => {
    const other = randomUUID();
    const unmatched = { medical_institution_id: null, institution_code: null, institution_name: 'みなと内科' };
    const matched = (id: string) => ({
      type: 'ReferralInstitutionMatched',
      data: { institution_code: null, institution_name: 'みなと内科', medical_institution_id: id },
    });
    const scenario = test.given(
      [
        requested(importA, 'referral'),
        {
          type: 'ReferralsImported',
          data: { ...chunk, import_id: importA, imported_row_count: 1, referrals: [referral({ ...unmatched })] },
        },
        {
          type: 'ReverseReferralsImported',
          data: {
            ...chunk,
            import_id: importA,
            imported_row_count: 1,
            reverse_referrals: [
              {
                identity: 'rev:1',
                row_number: 2,
                reverse_referral_date: '2024-05-02',
                patient_id: '1',
                patient_key: '1',
                ...unmatched,
                own_department: null,
                own_department_id: null,
                source_id: null,
              },
            ],
          },
        },
      ],
      [matched(clinic)],
      [
        requested(importB, 'referral'),
        {
          type: 'ReferralsImported',
          data: {
            ...chunk,
            import_id: importB,
            imported_row_count: 1,
            referrals: [referral({ ...unmatched, identity: 'referral:later', referral_date: '2024-06-03' })],
          },
        },
      ],
    );
    await scenario.thenRows('referral_data_imports', [
      { id: importA, unmatched_row_count: 2, new_record_count: 2 },
      { id: importB, unmatched_row_count: 0, new_record_count: 1 },
    ]);
    await scenario.thenRows('referral_monthly_rollups', [
      { medical_institution_id: clinic, month: new Date('2024-04-01'), referral_count: 1, reverse_referral_count: 0 },
      { medical_institution_id: clinic, month: new Date('2024-05-01'), referral_count: 0, reverse_referral_count: 1 },
      { medical_institution_id: clinic, month: new Date('2024-06-01'), referral_count: 1, reverse_referral_count: 0 },
    ]);

    const repointed = test.given(
      [
        {
          type: 'ReferralsImported',
          data: {
            ...chunk,
            import_id: importA,
            imported_row_count: 2,
            // The second row matched the master by its code: a hand match of the same name leaves it.
            referrals: [
              referral({ ...unmatched }),
              referral({ identity: 'referral:coded', institution_name: 'みなと内科' }),
            ],
          },
        },
        matched(other),
      ],
      [matched(clinic)],
    );
    await repointed.thenRows('referrals', [
      { identity: 'referral:1', medical_institution_id: clinic },
      { identity: 'referral:coded', medical_institution_id: clinic },
    ]);
    // The institution left keeps no row (a month without facts has none, as in a fresh build).
    await repointed.thenRows('referral_monthly_rollups', [{ medical_institution_id: clinic, referral_count: 2 }]);
  });

  it('keeps a referral and a reverse referral entered by hand under the id their POST answered, in the same rollups', async () => {
    const referralId = randomUUID();
    const reverseId = randomUUID();
    const scenario = test.given([
      {
        type: 'ReferralEntered',
        data: {
          referral_id: referralId,
          referral: referral({ identity: `manual:${referralId}`, institution_code: null, institution_name: null }),
        },
      },
      {
        type: 'ReverseReferralEntered',
        data: {
          reverse_referral_id: reverseId,
          reverse_referral: {
            identity: `manual:${reverseId}`,
            row_number: 0,
            reverse_referral_date: '2024-04-20',
            patient_id: '00123',
            patient_key: '123',
            medical_institution_id: clinic,
            institution_code: null,
            institution_name: null,
            own_department: null,
            own_department_id: null,
            source_id: null,
          },
        },
      },
      {
        type: 'HospitalAdmissionsImported',
        data: { ...chunk, import_id: importB, imported_row_count: 1, admissions: [stay({})] },
      },
    ]);
    await scenario.thenRows('referrals', [{ id: referralId, medical_institution_id: clinic }]);
    await scenario.thenRows('reverse_referrals', [{ id: reverseId, medical_institution_id: clinic }]);
    await scenario.thenRows('referral_monthly_rollups', [
      { medical_institution_id: clinic, referral_count: 1, admitted_count: 1, reverse_referral_count: 1 },
    ]);
  });
});
