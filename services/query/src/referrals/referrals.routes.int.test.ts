import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { featureKeys } from '@renkei/contracts';
import { formatPosition, streamId, type EventStore } from '@renkei/event-store';
import { buildInstitutionCode, institutionIdFromCode } from '@renkei/institution-master';
import type { TestAuth } from '@renkei/service-kit/testing';
import { startQueryTest, type QueryTest } from '../testing/query-test.ts';

let t: QueryTest;
let store: EventStore;
let app: FastifyInstance;
let testAuth: TestAuth;
const code = buildInstitutionCode({ prefectureCode: 22, scoreTable: 1, districtNumber: 2, institutionNumber: 1001 });
const clinic = institutionIdFromCode(code);
const tenant = randomUUID();
const importId = randomUUID();

beforeAll(async () => {
  t = await startQueryTest({
    master: { csv: `${code},みなと内科,,,静岡県静岡市葵区追手町1,,,,診療所,0,内科,,,開設\n` },
    live: true,
  });
  ({ store, app, testAuth } = t);
});

afterAll(async () => {
  await t?.close();
});

const chunk = { import_id: importId, chunk: 0, failed_row_count: 0 };
async function record() {
  const metadata = {
    tenant_id: tenant,
    account_id: null,
    correlation_id: importId,
    causation_id: null,
    schema_version: 1,
  };
  const result = await store.append(
    streamId('referral_data_import', importId),
    [
      {
        type: 'ReferralDataImportRequested',
        data: { import_id: importId, import_type: 'referral', filename: '紹介.csv', stored_path: '/x', mapping: null },
        metadata,
      },
      { type: 'ReferralDataImportStarted', data: { import_id: importId, total_row_count: 3 }, metadata },
      {
        type: 'ReferralsImported',
        data: {
          ...chunk,
          imported_row_count: 2,
          failed_row_count: 1,
          errors: [{ row_number: 4, message: '4行目: 紹介日がありません' }],
          referrals: ['2024-04-01', '2024-05-01'].map((date, i) => ({
            identity: `referral:${i}`,
            row_number: i + 2,
            referral_date: date,
            patient_id: `00${i}`,
            patient_key: String(i),
            medical_institution_id: i === 0 ? clinic : null,
            institution_code: i === 0 ? code : null,
            institution_name: i === 0 ? 'みなと内科' : '不明医院',
            // The referring department and 初診 are the file's, shown in the export only.
            from_department: i === 0 ? '内科' : null,
            from_doctor: '山田',
            to_department: '外科',
            own_department_id: null,
            to_doctor: null,
            purpose: '精査',
            first_visit: true,
            source_id: null,
          })),
        },
        metadata,
      },
      {
        type: 'HospitalAdmissionsImported',
        data: {
          ...chunk,
          chunk: 1,
          imported_row_count: 0,
          errors: [],
          admissions: [
            {
              identity: '1|0|20240410|0',
              patient_key: '0',
              admission_date: '2024-04-10',
              discharge_date: '2024-04-20',
              department_code: '100',
              icd10_code: 'K359',
              icd10_name: '急性虫垂炎',
              kcode: 'K718-21',
              operation_name: '腹腔鏡下虫垂切除術',
              operation_date: '2024-04-11',
              anesthesia: 'L008',
              dpc_code: '060150xx03xxxx',
              dpc_name: null,
              scores: { JCS0010: ['0'] },
              admission_route_code: '1',
              referral_in: true,
              discharge_destination_code: '1',
              discharge_outcome_code: '1',
            },
          ],
        },
        metadata,
      },
      {
        type: 'ReferralDataImportFinished',
        data: {
          import_id: importId,
          status: 'completed',
          imported_row_count: 2,
          failed_row_count: 1,
          unprocessed_row_count: 0,
          abortion_row_number: null,
          error: null,
        },
        metadata,
      },
    ],
    { expectedRevision: 'no_stream' },
  );
  return formatPosition(result.position);
}

async function get(url: string, tenantId = tenant, position?: string, role: 'owner' | 'member' = 'owner') {
  const token = await testAuth.token({ tenantId, accountId: randomUUID(), role, features: [...featureKeys] });
  return app.inject({
    method: 'GET',
    url,
    headers: { authorization: `Bearer ${token}`, ...(position ? { 'x-min-position': position } : {}) },
  });
}

describe('referral reads', () => {
  it('serve the upload record, the institution referrals with their stays, and first/last marks; other tenants see nothing', async () => {
    const position = await record();
    const list = await get('/api/data_uploads?import_type=referral', tenant, position);
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().data).toEqual([
      expect.objectContaining({
        id: importId,
        status: 'completed',
        imported_row_count: 2,
        failed_row_count: 1,
        new_record_count: 3,
        unmatched_row_count: 1,
        unmatched_institutions: [{ code: null, name: '不明医院', row_count: 1 }],
        error_messages: [{ row_number: 4, message: '4行目: 紹介日がありません' }],
      }),
    ]);
    expect((await get(`/api/data_uploads/${importId}`)).json()).toMatchObject({ id: importId });
    expect((await get(`/api/data_uploads/${importId}`, randomUUID())).statusCode).toBe(404);
    expect((await get(`/api/data_uploads/${importId}`, tenant, undefined, 'member')).statusCode).toBe(403);

    const referrals = await get(`/api/medical_institutions/${clinic}/referrals`);
    expect(referrals.statusCode, referrals.body).toBe(200);
    expect(referrals.json()).toMatchObject({
      meta: { total_count: 1 },
      data: [
        {
          referral_date: '2024-04-01',
          patient_id: '000',
          doctor_name_from: '山田',
          reason_for_presenting: '精査',
          // 外科 is none of the tenant's own departments: said as the list wrote it.
          referral_department: null,
          referral_department_as_written: '外科',
          hospital_admissions: [
            {
              admission_date: '2024-04-10',
              kcode: 'K718-21',
              scores: { JCS0010: 0 },
              // Named from the 様式1 code and the DPC code's MDC, the codes kept beside.
              department: '小児科（100）',
              dpc_code: '060150xx03xxxx',
              dpc_name: 'MDC06 消化器系疾患、肝臓・胆道・膵臓疾患',
            },
          ],
          reverse_referral: null,
        },
      ],
    });
    expect((await get(`/api/medical_institutions/${clinic}/referrals`, randomUUID())).json().data).toEqual([]);
    expect((await get(`/api/medical_institutions/${randomUUID()}/referrals`)).statusCode).toBe(404);

    const last = await get(`/api/referrals/last?medical_institution_ids[]=${clinic}`);
    expect(last.json()).toEqual([
      expect.objectContaining({ referral_date: '2024-04-01', medical_institution_id: clinic, first_visit_flag: true }),
    ]);
    expect((await get(`/api/reverse_referrals/last?medical_institution_ids[]=${clinic}`)).json()).toEqual([]);
    const token = await testAuth.token({ tenantId: tenant, accountId: randomUUID(), features: [...featureKeys] });
    const search = await app.inject({
      method: 'POST',
      url: '/api/medical_institutions/search_results',
      headers: { authorization: `Bearer ${token}` },
      payload: {
        referral_period: { from: '2024-04-15', to: '2024-05-31' },
        comparison_referral_period: { from: '2023-04-01', to: '2024-03-31' },
        sort_by: 'referral_count',
        sort: 'desc',
      },
    });
    expect(search.statusCode, search.body).toBe(200);
    expect(search.json().data[0]).toMatchObject({
      id: clinic,
      referral_count: 1,
      comparison_referral_count: 0,
      rate_of_referral_change: null,
    });
    const chart = async (period_unit: string) =>
      app.inject({
        method: 'POST',
        url: `/api/charts/medical_institutions/${clinic}/referrals`,
        headers: { authorization: `Bearer ${token}` },
        payload: { period: { from: '2024-03-01', to: '2024-05-31' }, period_unit },
      });
    expect((await chart('month')).json()).toEqual({
      labels: ['2024年3月', '2024年4月', '2024年5月'],
      series: [
        { key: 'referrals', name: '紹介', values: [0, 1, 0] },
        { key: 'admitted', name: '入院', values: [0, 1, 0] },
        { key: 'operated', name: '手術', values: [0, 1, 0] },
        { key: 'reverse_referrals', name: '逆紹介', values: [0, 0, 0] },
      ],
    });
    expect((await chart('fiscal_year')).json().labels).toEqual(['2023年度', '2024年度']);
    const unknown = await app.inject({
      method: 'POST',
      url: `/api/charts/medical_institutions/${randomUUID()}/referrals`,
      headers: { authorization: `Bearer ${token}` },
      payload: { period: { from: '2024-03-01', to: '2024-05-31' } },
    });
    expect(unknown.statusCode).toBe(404);
    // Weeks (Monday to Sunday, clipped to the period) from the analysis rollups: the referral of Monday April 1st.
    const weeks = (await chart('week')).json<{ labels: string[]; series: { key: string; values: number[] }[] }>();
    expect(weeks.labels).toHaveLength(14);
    expect(weeks.labels[0]).toBe('2024年2月26日週');
    const april = weeks.labels.indexOf('2024年4月1日週');
    expect(april).toBe(5);
    for (const key of ['referrals', 'admitted', 'operated'])
      expect(weeks.series.find((x) => x.key === key)!.values).toEqual(
        weeks.labels.map((_, i) => (i === april ? 1 : 0)),
      );
    expect(weeks.series.find((x) => x.key === 'reverse_referrals')!.values).toEqual(weeks.labels.map(() => 0));
    const template = await get('/api/data_uploads/templates/referral');
    expect(template.body).toContain('紹介日,患者ID,紹介元医療機関コード');

    // The export: every referral, one line per stay, the named department and MDC; Shift_JIS on request.
    // What the file said and the contract has no field for is there too: the referring department, 初診,
    // and the department as written when it is none of the own departments (外科 here).
    const csv = await get(`/api/medical_institutions/${clinic}/referrals/export`);
    expect(csv.statusCode, csv.body).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=UTF-8');
    const lines = csv.body
      .replace(/^\ufeff/, '')
      .trimEnd()
      .split('\r\n');
    expect(lines[0]).toBe(
      '紹介日,患者ID,紹介元診療科,紹介先診療科,紹介元医師,紹介先医師,紹介目的,初診,入院日,退院日,入院診療科,傷病名,ICD-10,Kコード,手術名,手術日,DPCコード,MDC,逆紹介日,入力',
    );
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(
        /^2024-04-01,000,内科,外科,山田,,精査,初診,2024-04-10,2024-04-20,小児科（100）,急性虫垂炎,K359,K718-21,腹腔鏡下虫垂切除術,2024-04-11,060150xx03xxxx,"?MDC06 消化器系疾患、肝臓・胆道・膵臓疾患"?,,取込$/,
      ),
    ]);
    const sjis = await app.inject({
      method: 'GET',
      url: `/api/medical_institutions/${clinic}/referrals/export?encoding=shift_jis`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(sjis.headers['content-type']).toBe('text/csv; charset=Shift_JIS');
    expect(new TextDecoder('shift_jis').decode(sjis.rawPayload)).toContain('小児科（100）');
    const other = await get(`/api/medical_institutions/${clinic}/referrals/export`, randomUUID());
    expect(
      other.body
        .replace(/^\ufeff/, '')
        .trimEnd()
        .split('\r\n'),
    ).toHaveLength(1);
    expect((await get(`/api/medical_institutions/${randomUUID()}/referrals/export`)).statusCode).toBe(404);
  });

  it('list the reverse referrals to an institution, newest first, a hand entry marked; other tenants see nothing', async () => {
    const entryId = randomUUID();
    const appended = await store.append(
      streamId('referral_entry', entryId),
      [
        {
          type: 'ReverseReferralEntered',
          data: {
            reverse_referral_id: entryId,
            reverse_referral: {
              identity: `manual:${entryId}`,
              row_number: 0,
              reverse_referral_date: '2024-06-10',
              patient_id: '00042',
              patient_key: '42',
              medical_institution_id: clinic,
              institution_code: null,
              institution_name: null,
              own_department: null,
              own_department_id: null,
              source_id: null,
            },
          },
          metadata: {
            tenant_id: tenant,
            account_id: null,
            correlation_id: entryId,
            causation_id: null,
            schema_version: 1,
          },
        },
      ],
      { expectedRevision: 'no_stream' },
    );
    const url = `/api/medical_institutions/${clinic}/reverse_referrals?page=1&per_page=10`;
    const listed = await get(url, tenant, formatPosition(appended.position));
    expect(listed.statusCode).toBe(200);
    expect(listed.json()).toEqual({
      data: [
        {
          id: entryId,
          medical_institution_id_from: null,
          medical_institution_id_to: clinic,
          specialty_id: null,
          specialty: null,
          reverse_referral_date: '2024-06-10',
          patient_id: '00042',
          control_id: null,
          importing_log_id: null,
          entered_by_hand: true,
        },
      ],
      meta: { total_count: 1, page: 1, per_page: 10, total_pages: 1 },
    });
    expect((await get(url, randomUUID())).json().data).toEqual([]);
    expect((await get(`/api/medical_institutions/${randomUUID()}/reverse_referrals`)).statusCode).toBe(404);
    expect((await get(`/api/medical_institutions/${clinic}/reverse_referrals?per_page=abc`)).statusCode).toBe(422);
  });
});
