import { randomUUID } from 'node:crypto';
import { describe, it } from 'vitest';
import { projectionTest } from '@renkei/projections/testing';
import type { HospitalAdmissionFact, ReferralFact, ReverseReferralFact } from '@renkei/domain';
import { referralsProjection } from './referrals.projection.ts';
import { noDepartment } from './referrals.keys.ts';

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

describe('referrals projection: own departments', () => {
  const surgery = randomUUID();
  const rehab = randomUUID();
  const departmentsReplaced = (...departments: [string, string][]) => ({
    type: 'OwnDepartmentsReplaced',
    data: { own_departments: departments.map(([id, name]) => ({ id, name, department_id: null })) },
  });
  const reverse = (over: Partial<ReverseReferralFact>): ReverseReferralFact => ({
    identity: 'rev:1',
    row_number: 2,
    reverse_referral_date: '2024-04-20',
    patient_id: '00123',
    patient_key: '123',
    medical_institution_id: clinic,
    institution_code: '2210110009',
    institution_name: '駿河クリニック',
    own_department: null,
    own_department_id: null,
    source_id: null,
    ...over,
  });
  const referralsChunk = (importId: string, referrals: ReferralFact[], extra: object = {}) => ({
    type: 'ReferralsImported',
    data: { ...chunk, import_id: importId, imported_row_count: referrals.length, referrals, ...extra },
  });
  const reversesChunk = (importId: string, reverseReferrals: ReverseReferralFact[]) => ({
    type: 'ReverseReferralsImported',
    data: {
      ...chunk,
      import_id: importId,
      imported_row_count: reverseReferrals.length,
      reverse_referrals: reverseReferrals,
    },
  });
  // Written in half-width kana with spaces around; the department is named in full-width kana.
  const halfWidth = ' ﾘﾊﾋﾞﾘﾃｰｼｮﾝ科 ';
  const unmatchedRows = [
    requested(importA, 'referral'),
    referralsChunk(importA, [
      referral({ identity: 'r:surgery', to_department: '外科', own_department_id: surgery }),
      referral({ identity: 'r:rehab', to_department: halfWidth }),
    ]),
    reversesChunk(importA, [reverse({ own_department: halfWidth })]),
  ];

  it('matches rows left 未設定 when a department of their name (NFKC, trimmed) is added, and moves their rollups', async () => {
    const before = test.given([departmentsReplaced([surgery, '外科']), ...unmatchedRows]);
    await before.thenRows('referrals', [
      { identity: 'r:surgery', own_department_id: surgery },
      { identity: 'r:rehab', own_department_id: null },
    ]);
    await before.thenRows('reverse_referrals', [{ identity: 'rev:1', own_department_id: null }]);
    await before.thenRows('referral_monthly_rollups', [
      { own_department_id: surgery, referral_count: 1, reverse_referral_count: 0 },
      { own_department_id: noDepartment, referral_count: 1, reverse_referral_count: 1 },
    ]);

    const after = test.given(
      [departmentsReplaced([surgery, '外科']), ...unmatchedRows],
      [departmentsReplaced([surgery, '外科'], [rehab, 'リハビリテーション科'])],
    );
    await after.thenRows('referrals', [
      { identity: 'r:surgery', own_department_id: surgery, to_department: '外科' },
      { identity: 'r:rehab', own_department_id: rehab, to_department: halfWidth },
    ]);
    await after.thenRows('reverse_referrals', [{ identity: 'rev:1', own_department_id: rehab }]);
    // The nil uuid's row is gone, as in a fresh build: the month's figures are all under the departments.
    await after.thenRows('referral_monthly_rollups', [
      { medical_institution_id: clinic, own_department_id: surgery, referral_count: 1, reverse_referral_count: 0 },
      { medical_institution_id: clinic, own_department_id: rehab, referral_count: 1, reverse_referral_count: 1 },
    ]);
    await after.thenRows('referral_tenant_period_rollups', [
      { own_department_id: surgery, referral_count: 1, reverse_referral_count: 0 },
      { own_department_id: rehab, referral_count: 1, reverse_referral_count: 0 },
      { own_department_id: rehab, referral_count: 0, reverse_referral_count: 1 },
    ]);
    await after.thenRows('referral_own_departments', [
      { own_department_id: noDepartment, name_key: null },
      { own_department_id: surgery, name_key: '外科' },
      { own_department_id: rehab, name_key: 'リハビリテーション科' },
    ]);
  });

  it('keeps the rows of a renamed department, releases those of a deleted one, and attaches them again by name', async () => {
    const rows = [
      departmentsReplaced([surgery, '外科'], [rehab, 'リハビリ']),
      requested(importA, 'referral'),
      referralsChunk(importA, [
        referral({ identity: 'r:surgery', to_department: '外科', own_department_id: surgery }),
        referral({ identity: 'r:rehab', to_department: 'リハビリ', own_department_id: rehab }),
      ]),
    ];
    const renamedThenDeleted = test.given(rows, [departmentsReplaced([surgery, '一般外科'], [rehab, 'リハビリ'])]);
    await renamedThenDeleted.thenRows('referrals', [
      { identity: 'r:surgery', own_department_id: surgery },
      { identity: 'r:rehab', own_department_id: rehab },
    ]);
    const deleted = test.given(
      rows,
      [departmentsReplaced([surgery, '一般外科'], [rehab, 'リハビリ'])],
      [departmentsReplaced([rehab, 'リハビリ'])],
    );
    await deleted.thenRows('referrals', [
      { identity: 'r:surgery', own_department_id: null },
      { identity: 'r:rehab', own_department_id: rehab },
    ]);
    await deleted.thenRows('referral_monthly_rollups', [
      { own_department_id: noDepartment, referral_count: 1 },
      { own_department_id: rehab, referral_count: 1 },
    ]);
    // Deleted while another department has the same name: the rows go to it.
    const other = randomUUID();
    const toOther = test.given(rows, [departmentsReplaced([other, '外科 '], [rehab, 'リハビリ'])]);
    await toOther.thenRows('referrals', [
      { identity: 'r:surgery', own_department_id: other },
      { identity: 'r:rehab', own_department_id: rehab },
    ]);
    await toOther.thenRows('referral_monthly_rollups', [
      { own_department_id: other, referral_count: 1 },
      { own_department_id: rehab, referral_count: 1 },
    ]);
    // Deleted, then made again under the same name: its rows follow the new one.
    const recreated = randomUUID();
    const again = test.given(
      rows,
      [departmentsReplaced([rehab, 'リハビリ'])],
      [departmentsReplaced([rehab, 'リハビリ'], [recreated, '外科'])],
    );
    await again.thenRows('referrals', [
      { identity: 'r:surgery', own_department_id: recreated },
      { identity: 'r:rehab', own_department_id: rehab },
    ]);
    await again.thenRows('referral_monthly_rollups', [
      { own_department_id: recreated, referral_count: 1 },
      { own_department_id: rehab, referral_count: 1 },
    ]);
    // Every department deleted: the list is known and empty, every row 未設定.
    const none = test.given(rows, [departmentsReplaced()]);
    await none.thenRows('referrals', [
      { identity: 'r:surgery', own_department_id: null },
      { identity: 'r:rehab', own_department_id: null },
    ]);
    await none.thenRows('referral_monthly_rollups', [{ own_department_id: noDepartment, referral_count: 2 }]);
  });

  it('checks the event’s department against the known list and matches by name when it is not there', async () => {
    const stale = randomUUID();
    const entryId = randomUUID();
    const otherTenant = randomUUID();
    const scenario = test.given([
      departmentsReplaced([surgery, '外科'], [rehab, 'ﾘﾊﾋﾞﾘ']),
      requested(importA, 'referral'),
      referralsChunk(importA, [
        // A department deleted since the worker read the list: matched by the row's name.
        referral({ identity: 'r:stale', to_department: '外科', own_department_id: stale }),
        // Nothing of that name: none.
        referral({ identity: 'r:none', to_department: '総合診療科', own_department_id: stale }),
        // A department of the list is kept whatever the row's text.
        referral({ identity: 'r:kept', to_department: '内科', own_department_id: rehab }),
      ]),
      {
        type: 'ReferralEntered',
        data: {
          referral_id: entryId,
          referral: referral({
            identity: `manual:${entryId}`,
            to_department: 'リハビリ',
            own_department_id: stale,
          }),
        },
      },
      // A tenant whose list this projection has not seen: the event's department as it is.
      {
        ...referralsChunk(importB, [referral({ identity: 'r:other', own_department_id: stale })]),
        tenant: otherTenant,
      },
    ]);
    await scenario.thenRows('referrals', [
      { identity: 'r:stale', own_department_id: surgery },
      { identity: 'r:none', own_department_id: null },
      { identity: 'r:kept', own_department_id: rehab },
      { identity: `manual:${entryId}`, own_department_id: rehab },
      { identity: 'r:other', own_department_id: stale },
    ]);
    // The row keeps what the event said: a re-upload of the same rows is unchanged.
    const reuploaded = test.given(
      [
        departmentsReplaced([surgery, '外科']),
        requested(importA, 'referral'),
        referralsChunk(importA, [referral({ identity: 'r:stale', to_department: '外科', own_department_id: stale })]),
      ],
      [
        requested(importB, 'referral'),
        referralsChunk(importB, [referral({ identity: 'r:stale', to_department: '外科', own_department_id: stale })]),
      ],
    );
    await reuploaded.thenRows('referral_data_imports', [
      { id: importA, new_record_count: 1, unchanged_record_count: 0 },
      { id: importB, new_record_count: 0, unchanged_record_count: 1 },
    ]);
    await reuploaded.thenRows('referrals', [{ identity: 'r:stale', own_department_id: surgery }]);
  });

  it('gives the same rows processed in one batch after the first list and one event per batch', async () => {
    const entryId = randomUUID();
    const reverseEntryId = randomUUID();
    const importC = randomUUID();
    const events = [
      departmentsReplaced([surgery, '外科']),
      requested(importA, 'referral'),
      referralsChunk(importA, [
        referral({ identity: 'r:1', to_department: '外科', own_department_id: surgery }),
        referral({ identity: 'r:2', to_department: halfWidth, referral_date: '2024-05-02' }),
      ]),
      reversesChunk(importA, [reverse({ own_department: '外科', own_department_id: surgery })]),
      {
        type: 'ReferralEntered',
        data: { referral_id: entryId, referral: referral({ identity: `manual:${entryId}`, to_department: '外科' }) },
      },
      // An import deferring its rollups, whose end comes after department changes.
      requested(importC, 'referral'),
      referralsChunk(importC, [referral({ identity: 'r:3', to_department: halfWidth, referral_date: '2024-06-03' })], {
        rollups_deferred: true,
      }),
      departmentsReplaced([surgery, '外科'], [rehab, 'リハビリテーション科']),
      // Its department is in the list now (a list applied after the batch's facts would make it surgery).
      {
        type: 'ReverseReferralEntered',
        data: {
          reverse_referral_id: reverseEntryId,
          reverse_referral: reverse({
            identity: `manual:${reverseEntryId}`,
            reverse_referral_date: '2024-04-25',
            own_department: '外科',
            own_department_id: rehab,
          }),
        },
      },
      departmentsReplaced([rehab, 'リハビリテーション科']),
      {
        type: 'ReferralDataImportFinished',
        data: {
          import_id: importC,
          status: 'completed',
          imported_row_count: 1,
          failed_row_count: 0,
          unprocessed_row_count: 0,
          abortion_row_number: null,
          error: null,
        },
      },
      // A correction whose department is not in the list then: matched by its name, and kept when its
      // department comes back (a list applied before the batch's facts would keep surgery).
      {
        type: 'ReferralEntryUpdated',
        data: {
          referral_id: entryId,
          referral: referral({ identity: `manual:${entryId}`, to_department: halfWidth, own_department_id: surgery }),
        },
      },
      departmentsReplaced([rehab, 'リハビリテーション科'], [surgery, '外科']),
    ];
    const expected = {
      referrals: [
        { identity: 'r:1', own_department_id: surgery },
        { identity: 'r:2', own_department_id: rehab },
        { identity: 'r:3', own_department_id: rehab },
        { identity: `manual:${entryId}`, own_department_id: rehab },
      ],
      reverse_referrals: [
        { identity: 'rev:1', own_department_id: surgery },
        { identity: `manual:${reverseEntryId}`, own_department_id: rehab },
      ],
      referral_monthly_rollups: [
        { month: new Date('2024-04-01'), own_department_id: surgery, referral_count: 1, reverse_referral_count: 1 },
        { month: new Date('2024-04-01'), own_department_id: rehab, referral_count: 1, reverse_referral_count: 1 },
        { month: new Date('2024-05-01'), own_department_id: rehab, referral_count: 1, reverse_referral_count: 0 },
        { month: new Date('2024-06-01'), own_department_id: rehab, referral_count: 1, reverse_referral_count: 0 },
      ],
      referral_tenant_period_rollups: [
        { own_department_id: surgery, referral_count: 1, reverse_referral_count: 0 },
        { own_department_id: surgery, referral_count: 0, reverse_referral_count: 1 },
        { own_department_id: rehab, referral_count: 1, reverse_referral_count: 0 },
        { own_department_id: rehab, referral_count: 0, reverse_referral_count: 1 },
        { own_department_id: rehab, referral_count: 1, reverse_referral_count: 0 },
        { own_department_id: rehab, referral_count: 1, reverse_referral_count: 0 },
      ],
      referral_data_imports: [
        { id: importA, new_record_count: 3, status: 'waiting' },
        { id: importC, new_record_count: 1, status: 'completed' },
      ],
      referral_pending_months: [],
    } as const;
    const [first, ...rest] = events;
    for (const scenario of [test.given(events), test.given([first!], rest), test.given(...events.map((e) => [e]))])
      for (const [table, rows] of Object.entries(expected))
        await scenario.thenRows(table as keyof typeof expected, rows);
  });
});
