import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import iconv from 'iconv-lite';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { featureKeys } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, streamId, type EventStore } from '@renkei/event-store';
import type { TestAuth } from '@renkei/service-kit/testing';
import { buildTestCommandApp, tenantEventCount } from '../testing.ts';

let db: TestDatabase;
let store: EventStore;
let app: FastifyInstance;
let testAuth: TestAuth;
let dataDir: string;
const url = '/api/imports/communications';

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-comm-upload-'));
  process.env.RENKEI_DATA_DIR = dataDir;
  ({ app, testAuth } = await buildTestCommandApp(db, store));
});

afterAll(async () => {
  await app?.close();
  await store?.close();
  await db?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

function multipart(filename: string, content: Buffer, fields: Record<string, string> = {}) {
  const boundary = '----renkei' + randomUUID();
  return {
    boundary,
    payload: Buffer.concat([
      ...Object.entries(fields).map(([name, value]) =>
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
      ),
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: text/csv\r\n\r\n`,
      ),
      content,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]),
  };
}

async function caller(role: 'owner' | 'member' = 'owner') {
  const tenantId = randomUUID();
  const accountId = randomUUID();
  const token = await testAuth.token({ tenantId, accountId, role, features: [...featureKeys] });
  return { tenantId, accountId, token };
}

const upload = (
  method: 'POST' | 'PUT',
  token: string,
  body: { boundary: string; payload: Buffer } = multipart(
    '活動記録.csv',
    iconv.encode('医療機関コード,活動日,種別\r\n', 'cp932'),
  ),
) =>
  app.inject({
    method,
    url,
    payload: body.payload,
    headers: { 'content-type': `multipart/form-data; boundary=${body.boundary}`, authorization: `Bearer ${token}` },
  });

const remove = (id: string, token: string) =>
  app.inject({ method: 'DELETE', url: `${url}/${id}`, headers: { authorization: `Bearer ${token}` } });

const meta = (tenantId: string, accountId: string) => ({
  tenant_id: tenantId,
  account_id: accountId,
  correlation_id: randomUUID(),
  causation_id: null,
  schema_version: 1,
});

/** An import as the worker leaves it: its records created, its run over (or not yet). */
async function givenImport(tenantId: string, accountId: string, { finished = true } = {}) {
  const importId = randomUUID();
  const created = [randomUUID(), randomUUID()];
  const metadata = meta(tenantId, accountId);
  for (const id of created)
    await store.append(
      streamId('communication', id),
      [
        {
          type: 'CommunicationCreated',
          data: {
            communication_id: id,
            medical_institution_id: randomUUID(),
            communication_type: 'visit',
            acted_date: '2026-04-01',
            category: null,
            purpose: null,
            story: '',
            event_name: null,
            memo: '',
            other_memo: '',
            person_in_charge_hospital: null,
            attendee: null,
            is_doctor_attended: false,
            user_id: accountId,
            attachment_ids: [],
            label_values: [],
            tasks: [],
          },
          metadata,
        },
      ],
      { expectedRevision: 'no_stream' },
    );
  await store.append(
    streamId('communication_import', importId),
    [
      {
        type: 'CommunicationImportRequested',
        data: { import_id: importId, filename: 'a.csv', stored_path: '/nowhere/a.csv', encoding: null, mode: 'create' },
        metadata,
      },
      { type: 'CommunicationImportStarted', data: { import_id: importId, total_row_count: 3 }, metadata },
      {
        type: 'CommunicationImportChunkProcessed',
        data: {
          import_id: importId,
          chunk: 0,
          imported_row_count: 2,
          failed_row_count: 1,
          errors: [{ row_number: 3, message: '3行目: 種別を入力してください' }],
          communication_ids: created,
        },
        metadata,
      },
      ...(finished
        ? [
            {
              type: 'CommunicationImportFinished',
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
          ]
        : []),
    ],
    { expectedRevision: 'no_stream' },
  );
  return { importId, created };
}

/** An account of the tenant, registered as the identity service would. */
async function registerAccount(tenantId: string, accountId: string) {
  await store.append(
    streamId('account', accountId),
    [
      {
        type: 'AccountRegistered',
        data: {
          account_id: accountId,
          tenant_id: tenantId,
          username: '連携 花子',
          email: null,
          login_name: null,
          role: 'owner',
          cs_account: false,
        },
        metadata: meta(tenantId, accountId),
      },
    ],
    { expectedRevision: 'no_stream' },
  );
}

const handEntered = (id: string, userId: string) => ({
  communication_id: id,
  medical_institution_id: randomUUID(),
  communication_type: 'visit',
  acted_date: '2026-04-01',
  category: null,
  purpose: null,
  story: '院長と面談',
  event_name: null,
  memo: '手入力のメモ',
  other_memo: '',
  person_in_charge_hospital: '田中様',
  attendee: null,
  is_doctor_attended: true,
  user_id: userId,
  attachment_ids: [],
  label_values: [],
});

/**
 * An update import as the worker leaves it: a record entered by hand, changed by the import's row
 * (its events carry the import as correlation id), and the chunk naming the records it changed.
 */
async function givenUpdateImport(tenantId: string, accountId: string, { userBefore = accountId } = {}) {
  const importId = randomUUID();
  const id = randomUUID();
  const before = handEntered(id, userBefore);
  const imported = { ...before, story: '取り込みで変えた内容', memo: '取り込みのメモ', user_id: accountId };
  await store.append(
    streamId('communication', id),
    [{ type: 'CommunicationCreated', data: { ...before, tasks: [] }, metadata: meta(tenantId, accountId) }],
    { expectedRevision: 'no_stream' },
  );
  const byImport = { ...meta(tenantId, accountId), correlation_id: importId };
  await store.append(
    streamId('communication', id),
    [{ type: 'CommunicationUpdated', data: imported, metadata: byImport }],
    {
      expectedRevision: 0,
    },
  );
  await store.append(
    streamId('communication_import', importId),
    [
      {
        type: 'CommunicationImportRequested',
        data: { import_id: importId, filename: 'a.csv', stored_path: '/nowhere/a.csv', encoding: null, mode: 'update' },
        metadata: byImport,
      },
      { type: 'CommunicationImportStarted', data: { import_id: importId, total_row_count: 1 }, metadata: byImport },
      {
        type: 'CommunicationImportChunkProcessed',
        data: {
          import_id: importId,
          chunk: 0,
          imported_row_count: 1,
          failed_row_count: 0,
          errors: [],
          communication_ids: [id],
        },
        metadata: byImport,
      },
      {
        type: 'CommunicationImportFinished',
        data: {
          import_id: importId,
          status: 'completed',
          imported_row_count: 1,
          failed_row_count: 0,
          unprocessed_row_count: 0,
          abortion_row_number: null,
          error: null,
        },
        metadata: byImport,
      },
    ],
    { expectedRevision: 'no_stream' },
  );
  return { importId, id, before, imported };
}

const lastType = async (id: string, tenantId: string) =>
  (await store.readStream(streamId('communication', id), { tenantId })).at(-1)?.type;

describe('communication import uploads', () => {
  it('opens a create import (POST) and an update import (PUT) with 202 and keeps the Shift_JIS file as sent', async () => {
    const { tenantId, accountId, token } = await caller();
    const bytes = iconv.encode('医療機関コード,活動日,種別\r\n1310000001,2026-04-01,訪問\r\n', 'cp932');
    const created = await upload('POST', token, multipart('活動記録.csv', bytes, { encoding: 'shift_jis' }));
    expect(created.statusCode, created.body).toBe(202);
    expect(created.json()).toMatchObject({
      filename: '活動記録.csv',
      status: 'waiting',
      import_type: 'communication',
      created_by: { id: accountId },
      error_messages: [],
    });
    const events = await store.readStream(streamId('communication_import', created.json().id), { tenantId });
    expect(events.map((e) => [e.type, (e.data as { mode: string }).mode])).toEqual([
      ['CommunicationImportRequested', 'create'],
    ]);
    const storedPath = (events[0]!.data as { stored_path: string }).stored_path;
    expect(fs.readFileSync(storedPath).equals(bytes)).toBe(true);
    const updated = await upload('PUT', token);
    expect(updated.statusCode, updated.body).toBe(202);
    expect(updated.json()).toMatchObject({ import_type: 'communication_update' });
  });

  it('answers 422 naming the file when none is sent or the encoding is unknown, and writes nothing', async () => {
    const { tenantId, token } = await caller();
    const boundary = '----renkei' + randomUUID();
    const noFile = await upload('POST', token, {
      boundary,
      payload: Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="encoding"\r\n\r\nutf-8\r\n--${boundary}--\r\n`,
      ),
    });
    expect(noFile.statusCode).toBe(422);
    expect(noFile.json().errors).toEqual([expect.objectContaining({ field: 'file' })]);
    const badEncoding = await upload('PUT', token, multipart('a.csv', Buffer.from('ID\r\n'), { encoding: 'latin1' }));
    expect(badEncoding.statusCode).toBe(422);
    expect(badEncoding.json().errors).toEqual([expect.objectContaining({ field: 'encoding' })]);
    expect(await tenantEventCount(db, tenantId)).toBe(0);
  });

  it('is an owner’s: a member gets 403', async () => {
    const { token } = await caller('member');
    expect((await upload('POST', token)).statusCode).toBe(403);
    expect((await remove(randomUUID(), token)).statusCode).toBe(403);
  });
});

describe('undoing a communication import', () => {
  it('deletes the records the import created, then the import; a second undo is 404', async () => {
    const { tenantId, accountId, token } = await caller();
    const { importId, created } = await givenImport(tenantId, accountId);
    // A record someone deleted since is skipped, not an error.
    await store.append(
      streamId('communication', created[1]!),
      [
        {
          type: 'CommunicationDeleted',
          data: { communication_id: created[1]!, medical_institution_id: randomUUID() },
          metadata: meta(tenantId, accountId),
        },
      ],
      { expectedRevision: 0 },
    );
    const res = await remove(importId, token);
    expect(res.statusCode, res.body).toBe(204);
    expect(res.headers['x-position']).toBeTruthy();
    expect(await lastType(created[0]!, tenantId)).toBe('CommunicationDeleted');
    expect(await store.readStream(streamId('communication', created[1]!), { tenantId })).toHaveLength(2);
    const events = await store.readStream(streamId('communication_import', importId), { tenantId });
    expect(events.at(-1)!.type).toBe('CommunicationImportDeleted');
    const count = await tenantEventCount(db, tenantId);
    expect((await remove(importId, token)).statusCode).toBe(404);
    expect(await tenantEventCount(db, tenantId)).toBe(count);
  });

  it('answers 404 for another tenant’s import or an unknown id, and 409 while the import runs; nothing is deleted', async () => {
    const owner = await caller();
    const { importId, created } = await givenImport(owner.tenantId, owner.accountId, { finished: false });
    const stranger = await caller();
    expect((await remove(importId, stranger.token)).statusCode).toBe(404);
    expect((await remove(randomUUID(), owner.token)).statusCode).toBe(404);
    const running = await remove(importId, owner.token);
    expect(running.statusCode).toBe(409);
    expect(running.json().message).toContain('処理中');
    expect(await lastType(created[0]!, owner.tenantId)).toBe('CommunicationCreated');
    expect(await tenantEventCount(db, stranger.tenantId)).toBe(0);
  });
});

describe('undoing a communication update import', () => {
  it('restores the values the import changed, through the command handler, keeping a hand edit made since', async () => {
    const { tenantId, accountId, token } = await caller();
    await registerAccount(tenantId, accountId);
    const { importId, id, before, imported } = await givenUpdateImport(tenantId, accountId);
    // After the import someone edits the memo by hand: the undo leaves that edit alone.
    await store.append(
      streamId('communication', id),
      [
        {
          type: 'CommunicationUpdated',
          data: { ...imported, memo: 'あとで手で直したメモ' },
          metadata: meta(tenantId, accountId),
        },
      ],
      { expectedRevision: 1 },
    );
    const res = await remove(importId, token);
    expect(res.statusCode, res.body).toBe(204);
    const events = await store.readStream(streamId('communication', id), { tenantId });
    expect(events).toHaveLength(4);
    const restored = events.at(-1)!;
    expect(restored.type).toBe('CommunicationUpdated');
    // Written as a hand edit is: by the caller, in the DELETE's request.
    expect(restored.metadata).toMatchObject({ account_id: accountId, tenant_id: tenantId });
    expect(restored.metadata.correlation_id).not.toBe(importId);
    expect(restored.data).toEqual({ ...before, memo: 'あとで手で直したメモ' });
    const importEvents = await store.readStream(streamId('communication_import', importId), { tenantId });
    expect(importEvents.at(-1)!.type).toBe('CommunicationImportDeleted');
    // Nothing is deleted by undoing an update import.
    expect(events.some((e) => e.type === 'CommunicationDeleted')).toBe(false);
  });

  it('refuses with 409 and restores nothing when today’s rules refuse a previous value', async () => {
    const { tenantId, accountId, token } = await caller();
    await registerAccount(tenantId, accountId);
    // The record was first entered for a staff member who is no longer an account of the tenant.
    const { importId, id } = await givenUpdateImport(tenantId, accountId, { userBefore: randomUUID() });
    const count = await tenantEventCount(db, tenantId);
    const res = await remove(importId, token);
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json().message).toContain('1件の活動記録');
    expect(res.json().message).toContain('担当者が見つかりません');
    expect(await tenantEventCount(db, tenantId)).toBe(count);
    expect(await lastType(id, tenantId)).toBe('CommunicationUpdated');
  });
});
