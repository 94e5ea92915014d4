import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, newEventMetadata, streamId, type EventStore } from '@renkei/event-store';
import type { TestAuth } from '@renkei/service-kit/testing';
import { buildTestCommandApp, injectAs, tenantEventCount, type WriteMethod } from '../testing.ts';

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

interface Caller {
  tenantId: string;
  accountId: string;
  role: 'owner' | 'member';
}

async function append(tenantId: string, stream: string, type: string, data: unknown) {
  await store.append(stream, [{ type, data, metadata: newEventMetadata(tenantId) }], { expectedRevision: 'any' });
}

/** A tenant with an account, an own department and an institution label. */
async function newTenant() {
  const tenantId = randomUUID();
  const accountId = randomUUID();
  await append(tenantId, streamId('account', accountId), 'AccountRegistered', {
    account_id: accountId,
    tenant_id: tenantId,
    username: '連携 花子',
    email: null,
    login_name: null,
    role: 'member',
    cs_account: false,
  });
  const department = randomUUID();
  await append(tenantId, streamId('own_departments', tenantId), 'OwnDepartmentsReplaced', {
    own_departments: [{ id: department, name: '内科', department_id: null }],
  });
  const label = randomUUID();
  await append(tenantId, streamId('medical_institution_label', label), 'MedicalInstitutionLabelCreated', {
    label_id: label,
    name: '担当者',
    description: '',
    component_type: 'text',
    selections: [],
    areas: [],
  });
  const caller: Caller = { tenantId, accountId, role: 'member' };
  return { caller, department, label };
}

const call = (caller: Caller, method: WriteMethod, url: string, payload?: unknown, headers?: Record<string, string>) =>
  injectAs({ app, testAuth }, caller, method, url, payload, headers);

async function report(caller: Caller, kind: string, item: string): Promise<string> {
  const res = await call(caller, 'POST', `/api/${kind}/definitions`, {
    name: 'レポート',
    display_items: [{ item_key: item }],
    aggregation_settings: { period: { from: '2025-04-01', to: '2026-03-31' } },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

it('creates, updates with If-Match and deletes a dashboard of the tenant’s reports', async () => {
  const { caller, department, label } = await newTenant();
  const institutionReport = await report(caller, 'medical_institution_reports', 'medical_institution_name');
  const areaReport = await report(caller, 'area_reports', 'prefecture');
  const body = {
    name: '  月次会議  ',
    filter_department: department,
    medical_institution_label_id: label,
    contents: [
      { report_type: 'medical_institution_report', report_id: institutionReport },
      { report_type: 'area_report', report_id: areaReport },
    ],
  };
  const created = await call(caller, 'POST', '/api/dashboards', body);
  expect(created.statusCode, created.body).toBe(201);
  expect(created.headers.etag).toBe('"0"');
  const id = created.json().id as string;
  expect(created.json()).toMatchObject({
    name: '月次会議',
    filter_department: department,
    medical_institution_label_id: label,
    contents: body.contents,
    created_by: { id: caller.accountId, name: '連携 花子' },
    version: 0,
  });
  const updated = await call(
    caller,
    'PUT',
    `/api/dashboards/${id}`,
    { ...body, name: '週次', contents: [] },
    { 'if-match': '0' },
  );
  expect(updated.statusCode, updated.body).toBe(200);
  expect(updated.json()).toMatchObject({
    name: '週次',
    contents: [],
    version: 1,
    created_by: { id: caller.accountId },
  });
  const before = await tenantEventCount(db, caller.tenantId);
  expect((await call(caller, 'PUT', `/api/dashboards/${id}`, body, { 'if-match': '0' })).statusCode).toBe(409);
  expect((await call(caller, 'DELETE', `/api/dashboards/${id}`, undefined, { 'if-match': '0' })).statusCode).toBe(409);
  expect(await tenantEventCount(db, caller.tenantId)).toBe(before);
  expect((await call(caller, 'DELETE', `/api/dashboards/${id}`, undefined, { 'if-match': '1' })).statusCode).toBe(204);
  expect((await call(caller, 'PUT', `/api/dashboards/${id}`, body)).statusCode).toBe(404);
});

it('refuses reports, departments and labels that are not the tenant’s, naming the fields, writing nothing', async () => {
  const { caller } = await newTenant();
  const other = await newTenant();
  const foreignReport = await report(other.caller, 'medical_institution_reports', 'medical_institution_name');
  const areaReport = await report(caller, 'area_reports', 'prefecture');
  const before = await tenantEventCount(db, caller.tenantId);
  const res = await call(caller, 'POST', '/api/dashboards', {
    name: 'ダッシュボード',
    filter_department: other.department,
    medical_institution_label_id: other.label,
    contents: [
      { report_type: 'medical_institution_report', report_id: foreignReport },
      { report_type: 'medical_institution_report', report_id: areaReport },
    ],
  });
  expect(res.statusCode).toBe(422);
  expect(res.json().errors).toEqual([
    { field: 'filter_department', message: '診療科が見つかりません' },
    { field: 'medical_institution_label_id', message: 'ラベルが見つかりません' },
    { field: 'contents.0.report_id', message: 'レポートが見つかりません' },
    { field: 'contents.1.report_id', message: 'レポートの種類が一致しません' },
  ]);
  const blank = await call(caller, 'POST', '/api/dashboards', { name: ' ' });
  expect(blank.statusCode).toBe(422);
  expect(blank.json().errors[0]).toMatchObject({ field: 'name' });
  expect(await tenantEventCount(db, caller.tenantId)).toBe(before);
});

it('answers 404 for another tenant’s dashboard, writing nothing', async () => {
  const { caller } = await newTenant();
  const other = await newTenant();
  const created = await call(caller, 'POST', '/api/dashboards', { name: '自分の' });
  expect(created.statusCode, created.body).toBe(201);
  const id = created.json().id as string;
  const before = await tenantEventCount(db, other.caller.tenantId);
  expect((await call(other.caller, 'PUT', `/api/dashboards/${id}`, { name: '乗っ取り' })).statusCode).toBe(404);
  expect((await call(other.caller, 'DELETE', `/api/dashboards/${id}`)).statusCode).toBe(404);
  expect(await tenantEventCount(db, other.caller.tenantId)).toBe(before);
});
