import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import type { CommunicationFields } from '@renkei/domain';
import {
  createPostgresEventStore,
  newEventMetadata,
  readStreamOrEmpty,
  streamId,
  type EventStore,
} from '@renkei/event-store';
import { generateInstitutionMaster, importInstitutionMaster } from '@renkei/institution-master';
import type { TestAuth } from '@renkei/service-kit/testing';
import { buildTestCommandApp, injectAs, tenantEventCount, type WriteMethod } from '../testing.ts';

/**
 * Records of a create import live in their chunk's `CommunicationsImported` until their first write,
 * which begins their own stream with `CommunicationImportAdopted` (docs/decisions.md). Every write of
 * the API must treat them as records created by hand: same versions, same If-Match, same 404s.
 */
let db: TestDatabase;
let store: EventStore;
let app: FastifyInstance;
let testAuth: TestAuth;
let institution: string;

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  ({ app, testAuth } = await buildTestCommandApp(db, store));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-imported-communications-'));
  await generateInstitutionMaster(path.join(dir, 'm.csv'), { count: 2, seed: 11 });
  await importInstitutionMaster(db, path.join(dir, 'm.csv'));
  fs.rmSync(dir, { recursive: true });
  const { rows } = await sql<{ id: string }>`SELECT id FROM ref.medical_institutions ORDER BY code`.execute(db.kysely);
  institution = rows[0]!.id;
});

afterAll(async () => {
  await app?.close();
  await store?.close();
  await db?.close();
});

interface Caller {
  tenantId: string;
  accountId: string;
}

async function account(tenantId: string, username: string): Promise<Caller> {
  const accountId = randomUUID();
  await store.append(
    streamId('account', accountId),
    [
      {
        type: 'AccountRegistered',
        data: {
          account_id: accountId,
          tenant_id: tenantId,
          username,
          email: null,
          login_name: null,
          role: 'member',
          cs_account: false,
        },
        metadata: newEventMetadata(tenantId),
      },
    ],
    { expectedRevision: 'no_stream' },
  );
  return { tenantId, accountId };
}

const call = (caller: Caller, method: WriteMethod, url: string, payload?: unknown, headers?: Record<string, string>) =>
  injectAs({ app, testAuth }, caller, method, url, payload, headers);
const visit = { communication_type: 'visit', acted_date: '2026-03-31', story: '院長と面談' };

/**
 * A chunk of a create import as the worker stores it: the index rows first, then the chunk's one event
 * (`stored: false` leaves the event out, as a worker killed between the two would).
 */
async function importChunk(caller: Caller, count: number, options: { stored?: boolean } = {}) {
  const importId = randomUUID();
  const rowsId = randomUUID();
  const records: CommunicationFields[] = Array.from({ length: count }, (_, i) => ({
    communication_id: randomUUID(),
    medical_institution_id: institution,
    communication_type: 'visit',
    acted_date: '2026-03-31',
    category: null,
    purpose: null,
    story: `取り込み${i}`,
    event_name: null,
    memo: '',
    other_memo: '',
    person_in_charge_hospital: null,
    attendee: null,
    is_doctor_attended: false,
    user_id: caller.accountId,
    attachment_ids: [],
    label_values: [],
  }));
  await sql`
    INSERT INTO cmd.imported_communications (tenant_id, communication_id, rows_id)
    SELECT ${caller.tenantId}, id, ${rowsId} FROM unnest(${records.map((r) => r.communication_id)}::uuid[]) AS r(id)`.execute(
    db.kysely,
  );
  if (options.stored !== false)
    await store.append(
      streamId('communication_import_rows', rowsId),
      [
        {
          type: 'CommunicationsImported',
          data: { import_id: importId, records },
          metadata: newEventMetadata(caller.tenantId),
        },
      ],
      { expectedRevision: 'no_stream' },
    );
  const [chunk] = await readStreamOrEmpty(store, streamId('communication_import_rows', rowsId), caller.tenantId);
  return { importId, ids: records.map((r) => r.communication_id), importedAt: chunk?.created_at.toISOString() };
}

const typesOf = async (caller: Caller, id: string) =>
  (await readStreamOrEmpty(store, streamId('communication', id), caller.tenantId)).map((e) => e.type);

it('edits an imported record with If-Match as a created one: version 0, then 1; a stale version is a 409', async () => {
  const t = await account(randomUUID(), '連携 花子');
  const { ids, importId, importedAt } = await importChunk(t, 2);
  const id = ids[0]!;
  const count = await tenantEventCount(db, t.tenantId);
  // A stale If-Match on the first write is a 409 and begins no stream.
  const early = await call(t, 'PUT', `/api/communications/${id}`, { ...visit, memo: '先走り' }, { 'if-match': '1' });
  expect(early.statusCode).toBe(409);
  expect(await tenantEventCount(db, t.tenantId)).toBe(count);
  const updated = await call(
    t,
    'PUT',
    `/api/communications/${id}`,
    { ...visit, memo: '次回は部長' },
    { 'if-match': '0' },
  );
  expect(updated.statusCode, updated.body).toBe(200);
  expect(updated.headers.etag).toBe('"1"');
  expect(updated.json()).toMatchObject({ id, memo: '次回は部長', version: 1, created_at: importedAt });
  expect(await typesOf(t, id)).toEqual(['CommunicationImportAdopted', 'CommunicationUpdated']);
  const [adopted] = await readStreamOrEmpty(store, streamId('communication', id), t.tenantId);
  expect(adopted!.data).toMatchObject({ communication_id: id, story: '取り込み0', import_id: importId });
  const stale = await call(t, 'PUT', `/api/communications/${id}`, { ...visit, memo: '古い' }, { 'if-match': '0' });
  expect(stale.statusCode).toBe(409);
  const again = await call(t, 'PUT', `/api/communications/${id}`, { ...visit, memo: '再編集' }, { 'if-match': '1' });
  expect(again.json()).toMatchObject({ version: 2, created_at: importedAt });
  // Another tenant does not see it.
  const stranger = await account(randomUUID(), '他院 次郎');
  expect((await call(stranger, 'PUT', `/api/communications/${ids[1]}`, visit)).statusCode).toBe(404);
  expect((await call(stranger, 'PUT', `/api/communications/${ids[1]}/likes`)).statusCode).toBe(404);
  expect(await typesOf(t, ids[1]!)).toEqual([]);
});

it('comments on and likes an imported record; neither makes an edit stale; only the author edits a comment', async () => {
  const t = await account(randomUUID(), '連携 花子');
  const other = await account(t.tenantId, '地域 太郎');
  const { ids } = await importChunk(t, 1);
  const id = ids[0]!;
  const comment = await call(t, 'POST', `/api/communications/${id}/comments`, { comment: 'お疲れさまです' });
  expect(comment.statusCode, comment.body).toBe(201);
  expect(comment.json()).toMatchObject({ comment: 'お疲れさまです', version: 0 });
  const liked = await call(other, 'PUT', `/api/communications/${id}/likes`);
  expect(liked.statusCode, liked.body).toBe(200);
  expect(liked.json()).toEqual([{ user: { id: other.accountId, name: '地域 太郎' } }]);
  const commentUrl = `/api/communications/${id}/comments/${comment.json().id}`;
  expect((await call(other, 'PUT', commentUrl, { comment: '横から' })).statusCode).toBe(403);
  const edited = await call(t, 'PUT', commentUrl, { comment: '修正' }, { 'if-match': '"0"' });
  expect(edited.json()).toMatchObject({ comment: '修正', version: 1 });
  expect((await call(t, 'DELETE', commentUrl, undefined, { 'if-match': '"0"' })).statusCode).toBe(409);
  const saved = await call(t, 'PUT', `/api/communications/${id}`, { ...visit, memo: 'x' }, { 'if-match': '0' });
  expect(saved.statusCode, saved.body).toBe(200);
  expect(saved.json()).toMatchObject({
    version: 1,
    comments: [{ comment: '修正' }],
    likes: [{ user: { id: other.accountId } }],
  });
  expect(await typesOf(t, id)).toEqual([
    'CommunicationImportAdopted',
    'CommunicationCommentAdded',
    'CommunicationLiked',
    'CommunicationCommentEdited',
    'CommunicationUpdated',
  ]);
});

it('deletes an imported record with If-Match; after that it is gone for every write', async () => {
  const t = await account(randomUUID(), '連携 花子');
  const { ids } = await importChunk(t, 1);
  const id = ids[0]!;
  expect((await call(t, 'DELETE', `/api/communications/${id}`, undefined, { 'if-match': '1' })).statusCode).toBe(409);
  expect(await typesOf(t, id)).toEqual([]);
  expect((await call(t, 'DELETE', `/api/communications/${id}`, undefined, { 'if-match': '0' })).statusCode).toBe(204);
  expect(await typesOf(t, id)).toEqual(['CommunicationImportAdopted', 'CommunicationDeleted']);
  expect((await call(t, 'PUT', `/api/communications/${id}`, visit)).statusCode).toBe(404);
  expect((await call(t, 'POST', `/api/communications/${id}/comments`, { comment: '遅い' })).statusCode).toBe(404);
  expect((await call(t, 'DELETE', `/api/communications/${id}`)).statusCode).toBe(404);
});

it('lets exactly one of two first writes begin the stream', async () => {
  const t = await account(randomUUID(), '連携 花子');
  const others = await Promise.all([account(t.tenantId, '地域 太郎'), account(t.tenantId, '連携 三郎')]);
  const { ids } = await importChunk(t, 2);
  // Two likes at once: a like is decided again on a lost race, so both count, on one beginning.
  const likes = await Promise.all(others.map((o) => call(o, 'PUT', `/api/communications/${ids[0]}/likes`)));
  expect(likes.map((r) => r.statusCode)).toEqual([200, 200]);
  expect(await typesOf(t, ids[0]!)).toEqual(['CommunicationImportAdopted', 'CommunicationLiked', 'CommunicationLiked']);
  // Two edits at once from version 0: one is saved, the other is a 409, as for a created record.
  const edits = await Promise.all(
    ['一人目', '二人目'].map((memo) =>
      call(t, 'PUT', `/api/communications/${ids[1]}`, { ...visit, memo }, { 'if-match': '0' }),
    ),
  );
  expect(edits.map((r) => r.statusCode).sort()).toEqual([200, 409]);
  const types = await typesOf(t, ids[1]!);
  expect(types).toEqual(['CommunicationImportAdopted', 'CommunicationUpdated']);
});

it('finds nothing where the worker noted a record but its chunk never got stored', async () => {
  const t = await account(randomUUID(), '連携 花子');
  const { ids } = await importChunk(t, 1, { stored: false });
  expect((await call(t, 'PUT', `/api/communications/${ids[0]}`, visit, { 'if-match': '0' })).statusCode).toBe(404);
  expect((await call(t, 'PUT', `/api/communications/${ids[0]}/likes`)).statusCode).toBe(404);
  expect(await typesOf(t, ids[0]!)).toEqual([]);
});

it('links tasks and VOCs to an imported record without writing to it', async () => {
  const t = await account(randomUUID(), '連携 花子');
  const { ids } = await importChunk(t, 1);
  const id = ids[0]!;
  const task = await call(t, 'POST', '/api/tasks', { title: '電話する', communication_id: id });
  expect(task.statusCode, task.body).toBe(201);
  expect(task.json()).toMatchObject({ communication_id: id });
  const voc = await call(t, 'POST', '/api/vocs', {
    medical_institution_id: institution,
    title: '駐車場が狭い',
    reported_date: '2026-04-01',
    communication_ids: [id],
  });
  expect(voc.statusCode, voc.body).toBe(201);
  const linked = await call(t, 'PUT', `/api/communications/${id}/vocs`, { voc_ids: [voc.json().id] });
  expect(linked.statusCode, linked.body).toBe(200);
  expect(await typesOf(t, id)).toEqual([]);
});

it('undoes an import: records written since and records never written are both deleted', async () => {
  const t = await account(randomUUID(), '連携 花子');
  const { ids, importId } = await importChunk(t, 2);
  const metadata = newEventMetadata(t.tenantId);
  await store.append(
    streamId('communication_import', importId),
    [
      {
        type: 'CommunicationImportRequested',
        data: { import_id: importId, filename: 'a.csv', stored_path: '/nowhere/a.csv', encoding: null, mode: 'create' },
        metadata,
      },
      { type: 'CommunicationImportStarted', data: { import_id: importId, total_row_count: 2 }, metadata },
      {
        type: 'CommunicationImportChunkProcessed',
        data: {
          import_id: importId,
          chunk: 0,
          imported_row_count: 2,
          failed_row_count: 0,
          errors: [],
          communication_ids: ids,
          rows_id: randomUUID(),
        },
        metadata,
      },
      {
        type: 'CommunicationImportFinished',
        data: {
          import_id: importId,
          status: 'completed',
          imported_row_count: 2,
          failed_row_count: 0,
          unprocessed_row_count: 0,
          abortion_row_number: null,
          error: null,
        },
        metadata,
      },
    ],
    { expectedRevision: 'no_stream' },
  );
  const edited = await call(t, 'PUT', `/api/communications/${ids[0]}`, { ...visit, memo: '編集' }, { 'if-match': '0' });
  expect(edited.statusCode, edited.body).toBe(200);
  const undone = await call(t, 'DELETE', `/api/imports/communications/${importId}`);
  expect(undone.statusCode, undone.body).toBe(204);
  expect(await typesOf(t, ids[0]!)).toEqual([
    'CommunicationImportAdopted',
    'CommunicationUpdated',
    'CommunicationDeleted',
  ]);
  expect(await typesOf(t, ids[1]!)).toEqual(['CommunicationImportAdopted', 'CommunicationDeleted']);
  expect((await call(t, 'PUT', `/api/communications/${ids[1]}/likes`)).statusCode).toBe(404);
});
