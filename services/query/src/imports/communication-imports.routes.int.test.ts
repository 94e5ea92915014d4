import { randomUUID } from 'node:crypto';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { defaultResources, featureKeys } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, streamId, type EventStore, type Position } from '@renkei/event-store';
import { catchUpProjections } from '@renkei/projections';
import { createTestAuth, type TestAuth } from '@renkei/service-kit/testing';
import { buildQueryApp, queryProjections } from '../index.ts';

let db: TestDatabase;
let store: EventStore;
let app: FastifyInstance;
let testAuth: TestAuth;

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  testAuth = await createTestAuth({ audience: defaultResources.query });
  app = await buildQueryApp({
    db,
    auth: testAuth.auth,
    logger: false,
    rateLimit: false,
    underPressure: false,
    minPositionTimeoutMs: 10_000,
  });
});

afterAll(async () => {
  await app?.close();
  await store?.close();
  await db?.close();
});

let last: Position | undefined;
async function record(tenantId: string, accountId: string | null, stream: string, type: string, data: unknown) {
  const metadata = {
    tenant_id: tenantId,
    account_id: accountId,
    correlation_id: randomUUID(),
    causation_id: null,
    schema_version: 1,
  };
  last = (await store.append(stream, [{ type, data, metadata }], { expectedRevision: 'any' })).position;
}
const settle = () => catchUpProjections({ db, store, projections: queryProjections, until: last! });

async function get(tenantId: string, url: string) {
  const token = await testAuth.token({ tenantId, features: [...featureKeys] });
  return app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
}

describe('communication import history', () => {
  it('lists the tenant’s imports, newest first, with progress, row errors and who uploaded; an undone import leaves', async () => {
    const tenant = randomUUID();
    const owner = randomUUID();
    await record(tenant, null, streamId('account', owner), 'AccountRegistered', {
      account_id: owner,
      tenant_id: tenant,
      username: '取込 太郎',
      email: 'owner@example.jp',
      login_name: null,
      role: 'owner',
      cs_account: false,
    });
    const first = randomUUID();
    const second = randomUUID();
    const s1 = streamId('communication_import', first);
    await record(tenant, owner, s1, 'CommunicationImportRequested', {
      import_id: first,
      filename: '活動記録.csv',
      stored_path: '/x',
      encoding: null,
      mode: 'create',
    });
    await record(tenant, owner, s1, 'CommunicationImportStarted', { import_id: first, total_row_count: 3 });
    await record(tenant, owner, s1, 'CommunicationImportChunkProcessed', {
      import_id: first,
      chunk: 0,
      imported_row_count: 2,
      failed_row_count: 1,
      errors: [{ row_number: 2, message: '2行目: 種別「来院」はありません' }],
      communication_ids: [randomUUID(), randomUUID()],
    });
    await record(tenant, owner, s1, 'CommunicationImportFinished', {
      import_id: first,
      status: 'completed',
      imported_row_count: 2,
      failed_row_count: 1,
      unprocessed_row_count: 0,
      abortion_row_number: null,
      error: null,
    });
    await record(tenant, owner, streamId('communication_import', second), 'CommunicationImportRequested', {
      import_id: second,
      filename: '修正.csv',
      stored_path: '/y',
      encoding: 'utf-8',
      mode: 'update',
    });
    // Another tenant's import is never listed.
    const stranger = randomUUID();
    await record(stranger, null, streamId('communication_import', randomUUID()), 'CommunicationImportRequested', {
      import_id: randomUUID(),
      filename: 'other.csv',
      stored_path: '/z',
      encoding: null,
      mode: 'create',
    });
    await settle();
    const res = await get(tenant, '/api/imports/communications?page=1&per_page=20');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      data: [
        expect.objectContaining({ id: second, status: 'waiting', import_type: 'communication_update' }),
        {
          id: first,
          filename: '活動記録.csv',
          status: 'completed',
          error_messages: [{ row_number: 2, message: '2行目: 種別「来院」はありません' }],
          imported_row_count: 2,
          failed_row_count: 1,
          unprocessed_row_count: 0,
          abortion_row_number: null,
          created_at: expect.any(String),
          created_by: { id: owner, name: '取込 太郎' },
          import_type: 'communication',
        },
      ],
      meta: { total_count: 2, page: 1, per_page: 20, total_pages: 1 },
    });
    await record(tenant, owner, s1, 'CommunicationImportDeleted', { import_id: first });
    await settle();
    const after = await get(tenant, '/api/imports/communications');
    expect(after.json().data.map((r: { id: string }) => r.id)).toEqual([second]);
    expect((await get(stranger, '/api/imports/communications')).json().meta.total_count).toBe(1);
  });

  it('answers 422 for a bad page', async () => {
    const res = await get(randomUUID(), '/api/imports/communications?page=0');
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual([expect.objectContaining({ field: 'page' })]);
  });
});

describe('communication import template', () => {
  it('has the fields and the tenant’s label names as headers, in UTF-8 with BOM or Shift_JIS', async () => {
    const tenant = randomUUID();
    await record(tenant, null, streamId('communication_labels', tenant), 'CommunicationLabelCreated', {
      label_id: randomUUID(),
      name: '面談相手',
      communication_type: 'visit',
      component_type: 'select',
      description: '',
      selections: [{ id: randomUUID(), label: '院長', order: 0 }],
      is_required: true,
    });
    // A phone call's label: its column is there, empty in the example row (a visit).
    await record(tenant, null, streamId('communication_labels', tenant), 'CommunicationLabelCreated', {
      label_id: randomUUID(),
      name: '通話内容',
      communication_type: 'phone',
      component_type: 'text',
      description: '',
      selections: [],
      is_required: false,
    });
    await settle();
    const utf8 = await get(tenant, '/api/imports/communications/template');
    expect(utf8.statusCode).toBe(200);
    expect(utf8.headers['content-disposition']).toContain('attachment');
    const [header, example] = utf8.body.replace(/^\uFEFF/, '').split('\r\n');
    expect(header!.split(',')).toEqual([
      '医療機関コード',
      '医療機関名',
      '活動日',
      '種別',
      '担当者',
      'カテゴリ',
      '目的',
      '内容',
      'イベント名',
      'メモ',
      'その他メモ',
      '先方担当者',
      '同行者',
      '医師面談',
      // The labels in their order (of two types, each first of its own: in either order).
      ...header!.split(',').slice(-2),
    ]);
    const labelColumns = Object.fromEntries(
      header!
        .split(',')
        .slice(-2)
        .map((name, i) => [name, example!.split(',').slice(-2)[i]]),
    );
    expect(labelColumns).toEqual({ 面談相手: '院長', 通話内容: '' });
    const sjis = await get(tenant, '/api/imports/communications/template?encoding=shift_jis');
    expect(iconv.decode(sjis.rawPayload, 'cp932').split('\r\n')[0]).toBe(header);
    const other = await get(randomUUID(), '/api/imports/communications/template');
    expect(other.body).not.toContain('面談相手');
  });
});
