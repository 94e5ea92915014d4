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
const code = buildInstitutionCode({ prefectureCode: 22, scoreTable: 1, districtNumber: 2, institutionNumber: 1002 });
const clinic = institutionIdFromCode(code);
const tenant = randomUUID();
const surgery = randomUUID();

beforeAll(async () => {
  t = await startQueryTest({
    master: { csv: `${code},あおば内科,,,静岡県静岡市葵区追手町1,,,,診療所,0,内科,,,開設\n` },
    live: true,
  });
  ({ store, app, testAuth } = t);
});

afterAll(async () => {
  await t?.close();
});

const metadata = { tenant_id: tenant, account_id: null, correlation_id: tenant, causation_id: null, schema_version: 1 };
/** A day of the month two months ago: inside the twelve whole months the segments count. */
const recent = (day: number) => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 2, day)).toISOString().slice(0, 10);
};

async function append(stream: string, type: string, data: unknown) {
  const r = await store.append(stream, [{ type, data, metadata }], { expectedRevision: 'any' });
  return formatPosition(r.position);
}

async function enter(n: number, department: string | null) {
  const id = randomUUID();
  return append(streamId('referral_entry', id), 'ReferralEntered', {
    referral_id: id,
    referral: {
      identity: `manual:${id}`,
      row_number: 0,
      referral_date: recent(1),
      patient_id: String(n),
      patient_key: String(n),
      medical_institution_id: clinic,
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
}

async function stay(n: number) {
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
        admission_date: recent(5),
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

async function get(url: string, tenantId = tenant, position?: string, role: 'owner' | 'member' = 'member') {
  const token = await testAuth.token({ tenantId, accountId: randomUUID(), role, features: [...featureKeys] });
  return app.inject({
    method: 'GET',
    url,
    headers: { authorization: `Bearer ${token}`, ...(position ? { 'x-min-position': position } : {}) },
  });
}

describe('segments', () => {
  it('before any save: the default setting, no segments, the institution in the rest', async () => {
    const other = randomUUID();
    // Any position of the projection's: its tables exist once it has passed it.
    const built = await append(streamId('segmentation_setting', randomUUID()), 'SegmentationSettingReplaced', {
      rest_segment_label: '他',
      excluded_own_department_ids: [],
      segments: [],
    });
    const setting = await get('/api/segmentation_setting', other, built);
    expect(setting.statusCode, setting.body).toBe(200);
    expect(setting.json()).toEqual({
      id: expect.any(String),
      rest_segment_label: 'その他',
      excluded_own_department_ids: [],
      segments: [],
      updated_at: null,
      version: null,
    });
    expect(setting.headers.etag).toBeUndefined();
    expect((await get('/api/referral_admission_segments', other)).json()).toEqual([]);
    expect((await get('/api/referral_admission_period', other)).json()).toEqual({
      max_referral_hospital_admission_period: 90,
      updated_at: null,
    });
    expect((await get(`/api/medical_institutions/${clinic}/segments`, other)).json()).toEqual([
      {
        own_department_id: null,
        segment_id: null,
        segment_label: 'その他',
        referral_count: 0,
        referral_admission_rate: null,
      },
    ]);
    expect((await get(`/api/medical_institutions/${randomUUID()}/segments`, other)).statusCode).toBe(404);
  });

  it('segments an institution by its referrals and admission rate, overall and per own department', async () => {
    await enter(1, surgery);
    await enter(2, surgery);
    await enter(3, null);
    await enter(4, null);
    await stay(1);
    await stay(3);
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
        referral_count_more_equal: 1,
        referral_admission_rate_more_equal: null,
      },
    ];
    let position = await append(streamId('segmentation_setting', tenant), 'SegmentationSettingReplaced', {
      rest_segment_label: '対象外',
      excluded_own_department_ids: [],
      segments,
    });
    const setting = await get('/api/segmentation_setting', tenant, position);
    expect(setting.json()).toMatchObject({ rest_segment_label: '対象外', segments, updated_at: expect.any(String) });
    expect(setting.headers.etag).toBe('"0"');
    expect(setting.json().version).toBe(0);
    expect((await get('/api/referral_admission_segments', tenant, position)).json()).toEqual([
      {
        id: segments[0]!.id,
        name: '重点',
        referral_count_min: 3,
        referral_count_max: null,
        admission_rate_min: 50,
        admission_rate_max: null,
      },
      {
        id: segments[1]!.id,
        name: '育成',
        referral_count_min: 1,
        referral_count_max: null,
        admission_rate_min: null,
        admission_rate_max: null,
      },
    ]);
    const result = await get(`/api/medical_institutions/${clinic}/segments`, tenant, position);
    expect(result.statusCode, result.body).toBe(200);
    expect(result.json()).toEqual([
      {
        own_department_id: null,
        segment_id: segments[0]!.id,
        segment_label: '重点',
        referral_count: 4,
        referral_admission_rate: 50,
      },
      {
        own_department_id: surgery,
        segment_id: segments[1]!.id,
        segment_label: '育成',
        referral_count: 2,
        referral_admission_rate: 50,
      },
    ]);
    // Another tenant sees its own (empty) figures for the same institution.
    expect((await get(`/api/medical_institutions/${clinic}/segments`, randomUUID())).json()[0]).toMatchObject({
      referral_count: 0,
      segment_label: 'その他',
    });

    position = await append(streamId('segmentation_setting', tenant), 'SegmentationSettingReplaced', {
      rest_segment_label: '対象外',
      excluded_own_department_ids: [surgery],
      segments,
    });
    expect((await get(`/api/medical_institutions/${clinic}/segments`, tenant, position)).json()).toEqual([
      {
        own_department_id: null,
        segment_id: segments[1]!.id,
        segment_label: '育成',
        referral_count: 2,
        referral_admission_rate: 50,
      },
    ]);

    position = await append(streamId('referral_admission_period', tenant), 'ReferralAdmissionPeriodChanged', {
      days: 3,
    });
    const period = await get('/api/referral_admission_period', tenant, position);
    expect(period.json()).toEqual({ max_referral_hospital_admission_period: 3, updated_at: expect.any(String) });
    expect(period.headers.etag).toBe('"0"');
  });
});
