import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, readStreamOrEmpty, streamId, type EventStore } from '@renkei/event-store';
import type { TestAuth } from '@renkei/service-kit/testing';
import { buildTestCommandApp, injectAs, tenantEventCount } from '../testing.ts';

let db: TestDatabase;
let store: EventStore;
let app: FastifyInstance;
let testAuth: TestAuth;

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  ({ app, testAuth } = await buildTestCommandApp(db, store));
});

afterAll(async () => {
  await app?.close();
  await store?.close();
  await db?.close();
});

const owner = () => ({ tenantId: randomUUID(), accountId: randomUUID(), role: 'owner' as const });
const surgery = randomUUID();
const withDepartment = async (caller: ReturnType<typeof owner>) => {
  await store.append(
    streamId('own_departments', caller.tenantId),
    [
      {
        type: 'OwnDepartmentsReplaced',
        data: { own_departments: [{ id: surgery, name: '外科', department_id: null }] },
        metadata: {
          tenant_id: caller.tenantId,
          account_id: caller.accountId,
          correlation_id: randomUUID(),
          causation_id: null,
          schema_version: 1,
        },
      },
    ],
    { expectedRevision: 'any' },
  );
};
const setting = {
  rest_segment_label: 'その他',
  excluded_own_department_ids: [surgery],
  segments: [
    { label: '重点', priority: 1, referral_count_more_equal: 10, referral_admission_rate_more_equal: 30 },
    { label: '育成', priority: 2, referral_count_more_equal: 1, referral_admission_rate_more_equal: null },
  ],
};

describe('segmentation setting', () => {
  it('an owner saves it; a stale If-Match is a 409; the answer keeps segment ids', async () => {
    const caller = owner();
    await withDepartment(caller);
    const first = await injectAs({ app, testAuth }, caller, 'PUT', '/api/segmentation_setting', setting);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.headers.etag).toBe('"0"');
    const saved = first.json();
    expect(saved).toMatchObject({
      rest_segment_label: 'その他',
      excluded_own_department_ids: [surgery],
      segments: [
        { label: '重点', priority: 1, referral_count_more_equal: 10, referral_admission_rate_more_equal: 30 },
        { label: '育成', priority: 2, referral_count_more_equal: 1, referral_admission_rate_more_equal: null },
      ],
    });
    expect(saved.updated_at).toEqual(expect.any(String));
    const renamed = {
      ...setting,
      segments: saved.segments.map((s: object, i: number) => (i === 0 ? { ...s, label: '最重点' } : s)),
    };
    const second = await injectAs({ app, testAuth }, caller, 'PUT', '/api/segmentation_setting', renamed, {
      'if-match': '"0"',
    });
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json().segments[0]).toMatchObject({ id: saved.segments[0].id, label: '最重点' });
    const stale = await injectAs({ app, testAuth }, caller, 'PUT', '/api/segmentation_setting', setting, {
      'if-match': '"0"',
    });
    expect(stale.statusCode).toBe(409);
    expect(await tenantEventCount(db, caller.tenantId)).toBe(3);
  });

  it('refuses bad input with the fields named (422) and writes nothing', async () => {
    const caller = owner();
    const res = await injectAs({ app, testAuth }, caller, 'PUT', '/api/segmentation_setting', {
      rest_segment_label: '',
      excluded_own_department_ids: [randomUUID()],
      segments: [
        { label: '重点', priority: 1, referral_count_more_equal: -1, referral_admission_rate_more_equal: 130 },
        { label: '重点', priority: 1, referral_count_more_equal: null, referral_admission_rate_more_equal: null },
      ],
    });
    expect(res.statusCode).toBe(422);
    const fields = res.json().errors.map((e: { field: string }) => e.field);
    expect(fields).toEqual(
      expect.arrayContaining([
        'rest_segment_label',
        'segments.0.referral_count_more_equal',
        'segments.0.referral_admission_rate_more_equal',
        'segments.1.label',
        'segments.1.priority',
      ]),
    );
    const unknownDepartment = await injectAs({ app, testAuth }, caller, 'PUT', '/api/segmentation_setting', {
      ...setting,
      excluded_own_department_ids: [randomUUID()],
    });
    expect(unknownDepartment.statusCode).toBe(422);
    expect(unknownDepartment.json().errors).toEqual([
      { field: 'excluded_own_department_ids.0', message: '自院の診療科が見つかりません' },
    ]);
    const unknownSegment = await injectAs({ app, testAuth }, caller, 'PUT', '/api/segmentation_setting', {
      ...setting,
      excluded_own_department_ids: [],
      segments: [{ ...setting.segments[0], id: randomUUID() }],
    });
    expect(unknownSegment.statusCode).toBe(422);
    expect(await tenantEventCount(db, caller.tenantId)).toBe(0);
  });

  it('a member gets 403 and writes nothing', async () => {
    const caller = { ...owner(), role: 'member' as const };
    const res = await injectAs({ app, testAuth }, caller, 'PUT', '/api/segmentation_setting', setting);
    expect(res.statusCode).toBe(403);
    const period = await injectAs({ app, testAuth }, caller, 'PUT', '/api/referral_admission_period', {
      max_referral_hospital_admission_period: 60,
    });
    expect(period.statusCode).toBe(403);
    expect(await tenantEventCount(db, caller.tenantId)).toBe(0);
  });
});

describe('referral admission period', () => {
  it('an owner changes it once; the same value writes nothing; a stale If-Match is a 409; bad input a 422', async () => {
    const caller = owner();
    const url = '/api/referral_admission_period';
    const res = await injectAs({ app, testAuth }, caller, 'PUT', url, { max_referral_hospital_admission_period: 60 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ max_referral_hospital_admission_period: 60, updated_at: expect.any(String) });
    expect(res.headers.etag).toBe('"0"');
    const same = await injectAs({ app, testAuth }, caller, 'PUT', url, { max_referral_hospital_admission_period: 60 });
    expect(same.statusCode).toBe(200);
    expect(await tenantEventCount(db, caller.tenantId)).toBe(1);
    const stale = await injectAs(
      { app, testAuth },
      caller,
      'PUT',
      url,
      { max_referral_hospital_admission_period: 30 },
      { 'if-match': '"5"' },
    );
    expect(stale.statusCode).toBe(409);
    for (const bad of [0, 366, 1.5, '60', null]) {
      const r = await injectAs({ app, testAuth }, caller, 'PUT', url, { max_referral_hospital_admission_period: bad });
      expect(r.statusCode).toBe(422);
      expect(r.json().errors[0].field).toBe('max_referral_hospital_admission_period');
    }
    expect(await tenantEventCount(db, caller.tenantId)).toBe(1);
    const [event] = await readStreamOrEmpty(
      store,
      streamId('referral_admission_period', caller.tenantId),
      caller.tenantId,
    );
    expect(event).toMatchObject({ type: 'ReferralAdmissionPeriodChanged', data: { days: 60 } });
    // Another tenant's period is its own: still the default.
    const other = owner();
    const back = await injectAs({ app, testAuth }, other, 'PUT', url, { max_referral_hospital_admission_period: 90 });
    expect(back.json().max_referral_hospital_admission_period).toBe(90);
    expect(await tenantEventCount(db, other.tenantId)).toBe(0);
  });
});
