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
const codeOf = (n: number) =>
  buildInstitutionCode({ prefectureCode: 22, scoreTable: 1, districtNumber: 2, institutionNumber: 1000 + n });
const [big, small, nowhere] = [1, 2, 3].map((n) => institutionIdFromCode(codeOf(n))) as [string, string, string];
const tenant = randomUUID();
const surgery = randomUUID();
const medicine = randomUUID();

beforeAll(async () => {
  t = await startQueryTest({
    master: {
      csv: [
        `${codeOf(1)},あおば内科,,,静岡県静岡市葵区追手町1,,,,診療所,0,内科,34.97,138.38,開設`,
        `${codeOf(2)},みどり外科,,,静岡県静岡市葵区追手町2,,,,診療所,0,外科,34.98,138.39,開設`,
        `${codeOf(3)},ひかり医院,,,静岡県静岡市葵区追手町3,,,,診療所,0,内科,,,開設`,
        '',
      ].join('\n'),
    },
    live: true,
  });
  ({ store, app, testAuth } = t);
});

afterAll(async () => {
  await t?.close();
});

const metadata = { tenant_id: tenant, account_id: null, correlation_id: tenant, causation_id: null, schema_version: 1 };

async function append(stream: string, type: string, data: unknown) {
  const r = await store.append(stream, [{ type, data, metadata }], { expectedRevision: 'any' });
  return formatPosition(r.position);
}

let patient = 0;
async function enter(institution: string, date: string, department: string | null) {
  const id = randomUUID();
  const n = ++patient;
  await append(streamId('referral_entry', id), 'ReferralEntered', {
    referral_id: id,
    referral: {
      identity: `manual:${id}`,
      row_number: 0,
      referral_date: date,
      patient_id: String(n),
      patient_key: String(n),
      medical_institution_id: institution,
      institution_code: null,
      institution_name: null,
      from_department: null,
      from_doctor: null,
      to_department: null,
      own_department_id: department,
      to_doctor: null,
      purpose: null,
      first_visit: null,
      source_id: null,
    },
  });
  return n;
}

async function stay(n: number, date: string) {
  const importId = randomUUID();
  return append(streamId('referral_data_import', importId), 'HospitalAdmissionsImported', {
    import_id: importId,
    chunk: 0,
    imported_row_count: 1,
    failed_row_count: 0,
    errors: [],
    admissions: [
      {
        identity: `stay:${n}`,
        patient_key: String(n),
        admission_date: date,
        discharge_date: null,
        department_code: null,
        icd10_code: null,
        icd10_name: null,
        kcode: null,
        operation_name: null,
        operation_date: null,
        anesthesia: null,
        dpc_code: null,
        dpc_name: null,
        scores: {},
        admission_route_code: null,
        referral_in: null,
        discharge_destination_code: null,
        discharge_outcome_code: null,
      },
    ],
  });
}

async function post(body: object, tenantId = tenant, position?: string) {
  const token = await testAuth.token({ tenantId, accountId: randomUUID(), role: 'member', features: [...featureKeys] });
  return app.inject({
    method: 'POST',
    url: '/api/data_analysis/segment_map',
    headers: { authorization: `Bearer ${token}`, ...(position ? { 'x-min-position': position } : {}) },
    payload: body,
  });
}

const fiscal2024 = { from: '2024-04-01', to: '2025-03-31' };
const segments = [
  {
    id: randomUUID(),
    label: '重点',
    priority: 1,
    referral_count_more_equal: 3,
    referral_admission_rate_more_equal: 50,
  },
  {
    id: randomUUID(),
    label: '育成',
    priority: 2,
    referral_count_more_equal: 2,
    referral_admission_rate_more_equal: null,
  },
];

describe('segment map', () => {
  let position: string;
  beforeAll(async () => {
    // あおば: 4 referrals in 年度2024 (3 to surgery, 2 of them admitted), 1 after it; みどり: 1; ひかり: 2 without a location.
    const a1 = await enter(big, '2024-05-10', surgery);
    const a2 = await enter(big, '2024-06-10', surgery);
    await enter(big, '2024-07-10', surgery);
    await enter(big, '2025-01-10', medicine);
    await enter(big, '2025-04-02', medicine);
    await stay(a1, '2024-05-12');
    await stay(a2, '2024-06-12');
    await enter(small, '2024-09-01', medicine);
    await enter(nowhere, '2024-10-01', medicine);
    await enter(nowhere, '2024-10-02', medicine);
    position = await append(streamId('segmentation_setting', tenant), 'SegmentationSettingReplaced', {
      rest_segment_label: '対象外',
      excluded_own_department_ids: [],
      segments,
    });
  });

  it('places the referring institutions of the period in their segments, counting the ones without a location', async () => {
    const res = await post({ period: fiscal2024 }, tenant, position);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      segments: [
        { segment_id: segments[0]!.id, label: '重点', priority: 1, institution_count: 1, referral_count: 4 },
        { segment_id: segments[1]!.id, label: '育成', priority: 2, institution_count: 0, referral_count: 0 },
        { segment_id: null, label: '対象外', priority: null, institution_count: 1, referral_count: 1 },
      ],
      data: [
        {
          id: big,
          name: 'あおば内科',
          address: '静岡県静岡市葵区追手町1',
          latitude: 34.97,
          longitude: 138.38,
          referral_count: 4,
          referral_admission_rate: 50,
          segment_id: segments[0]!.id,
          segment_label: '重点',
        },
        expect.objectContaining({ id: small, referral_count: 1, referral_admission_rate: 0, segment_id: null }),
      ],
      without_location_count: 1,
    });
  });

  it('narrows to own departments, and the setting excludes its departments, with the same segment rule', async () => {
    const res = await post({ period: fiscal2024, own_department_ids: [surgery] }, tenant, position);
    expect(res.json().data).toEqual([
      expect.objectContaining({
        id: big,
        referral_count: 3,
        referral_admission_rate: 66.7,
        segment_id: segments[0]!.id,
      }),
    ]);
    expect(res.json().without_location_count).toBe(0);

    const excluding = await append(streamId('segmentation_setting', tenant), 'SegmentationSettingReplaced', {
      rest_segment_label: '対象外',
      excluded_own_department_ids: [surgery],
      segments,
    });
    const rest = await post({ period: fiscal2024 }, tenant, excluding);
    expect(rest.json().data).toEqual([
      expect.objectContaining({ id: big, referral_count: 1, segment_id: null }),
      expect.objectContaining({ id: small, referral_count: 1, segment_id: null }),
    ]);
    await append(streamId('segmentation_setting', tenant), 'SegmentationSettingReplaced', {
      rest_segment_label: '対象外',
      excluded_own_department_ids: [],
      segments,
    });
  });

  it("shows another tenant none of this tenant's institutions, and the default rest segment", async () => {
    const res = await post({ period: fiscal2024 }, randomUUID(), position);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      segments: [{ segment_id: null, label: 'その他', priority: null, institution_count: 0, referral_count: 0 }],
      data: [],
      without_location_count: 0,
    });
  });

  it('refuses a bad period with 422 naming the field', async () => {
    const backwards = await post({ period: { from: '2025-03-31', to: '2024-04-01' } });
    expect(backwards.statusCode).toBe(422);
    expect(JSON.stringify(backwards.json().errors)).toContain('period');
    const malformed = await post({ period: { from: '2024/04/01', to: '2025-03-31' } });
    expect(malformed.statusCode).toBe(422);
    expect((await post({})).statusCode).toBe(422);
    expect((await post({ period: fiscal2024, own_department_ids: ['x'] })).statusCode).toBe(422);
  });
});
