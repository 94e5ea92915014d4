import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, readStreamOrEmpty, streamId, type EventStore } from '@renkei/event-store';
import { generateInstitutionMaster, importInstitutionMaster } from '@renkei/institution-master';
import type { TestAuth } from '@renkei/service-kit/testing';
import { buildTestCommandApp, injectAs, tenantEventCount } from '../testing.ts';

let db: TestDatabase;
let store: EventStore;
let app: FastifyInstance;
let testAuth: TestAuth;
let institutions: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  ({ app, testAuth } = await buildTestCommandApp(db, store));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-matching-'));
  await generateInstitutionMaster(path.join(dir, 'm.csv'), { count: 2, seed: 3 });
  await importInstitutionMaster(db, path.join(dir, 'm.csv'));
  fs.rmSync(dir, { recursive: true });
  const { rows } = await sql<{ id: string }>`SELECT id FROM ref.medical_institutions ORDER BY code`.execute(db.kysely);
  institutions = rows.map((r) => r.id);
});

afterAll(async () => {
  await app?.close();
  await store?.close();
  await db?.close();
});

const owner = () => ({ tenantId: randomUUID(), accountId: randomUUID(), role: 'owner' as const });
const url = '/api/data_uploads/institution_matches';

describe('PUT /data_uploads/institution_matches', () => {
  it('remembers the match in the tenant’s stream, once however often it is sent, and re-points it', async () => {
    const caller = owner();
    const body = { institution_code: '', institution_name: ' みなと内科 ', medical_institution_id: institutions[0] };
    const first = await injectAs({ app, testAuth }, caller, 'PUT', url, body);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({
      institution_code: null,
      institution_name: 'みなと内科',
      medical_institution_id: institutions[0],
    });
    expect(first.headers['x-position']).toBeTruthy();
    expect((await injectAs({ app, testAuth }, caller, 'PUT', url, body)).statusCode).toBe(200);
    expect(await tenantEventCount(db, caller.tenantId)).toBe(1);
    const moved = await injectAs({ app, testAuth }, caller, 'PUT', url, {
      ...body,
      medical_institution_id: institutions[1],
    });
    expect(moved.statusCode).toBe(200);
    expect(moved.headers.etag).toBe('"1"');
    const stale = await injectAs({ app, testAuth }, caller, 'PUT', url, body, { 'if-match': '"0"' });
    expect(stale.statusCode).toBe(409);
    const events = await readStreamOrEmpty(
      store,
      streamId('referral_institution_matches', caller.tenantId),
      caller.tenantId,
    );
    expect(events.map((e) => (e.data as { medical_institution_id: string }).medical_institution_id)).toEqual([
      institutions[0],
      institutions[1],
    ]);
  });

  it('answers 422 naming the fields for a match without code and name or with a bad id, writing nothing', async () => {
    const caller = owner();
    const empty = await injectAs({ app, testAuth }, caller, 'PUT', url, {
      institution_code: null,
      institution_name: '  ',
      medical_institution_id: institutions[0],
    });
    expect(empty.statusCode).toBe(422);
    expect(
      empty
        .json()
        .errors.map((e: { field: string }) => e.field)
        .sort(),
    ).toEqual(['institution_code', 'institution_name']);
    const badId = await injectAs({ app, testAuth }, caller, 'PUT', url, {
      institution_code: null,
      institution_name: 'みなと内科',
      medical_institution_id: 'x',
    });
    expect(badId.statusCode).toBe(422);
    expect(badId.json().errors.map((e: { field: string }) => e.field)).toEqual(['medical_institution_id']);
    expect(await tenantEventCount(db, caller.tenantId)).toBe(0);
  });

  it('answers 404 for an institution not in the master and 403 for a member, writing nothing', async () => {
    const caller = owner();
    const unknown = await injectAs({ app, testAuth }, caller, 'PUT', url, {
      institution_code: '1234567',
      institution_name: null,
      medical_institution_id: randomUUID(),
    });
    expect(unknown.statusCode).toBe(404);
    const member = await injectAs({ app, testAuth }, { ...caller, role: 'member' }, 'PUT', url, {
      institution_code: '1234567',
      institution_name: null,
      medical_institution_id: institutions[0],
    });
    expect(member.statusCode).toBe(403);
    expect(await tenantEventCount(db, caller.tenantId)).toBe(0);
  });
});

describe('PUT /data_uploads/institution_dismissals', () => {
  const dismissals = '/api/data_uploads/institution_dismissals';

  it('sets a name aside once however often it is sent, and puts it back', async () => {
    const caller = owner();
    const body = { institution_code: '', institution_name: ' 不明 ', dismissed: true };
    const first = await injectAs({ app, testAuth }, caller, 'PUT', dismissals, body);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({ institution_code: null, institution_name: '不明', dismissed: true });
    expect(first.headers['x-position']).toBeTruthy();
    expect((await injectAs({ app, testAuth }, caller, 'PUT', dismissals, body)).statusCode).toBe(200);
    expect(await tenantEventCount(db, caller.tenantId)).toBe(1);
    const back = await injectAs({ app, testAuth }, caller, 'PUT', dismissals, { ...body, dismissed: false });
    expect(back.statusCode).toBe(200);
    expect(back.json().dismissed).toBe(false);
    const events = await readStreamOrEmpty(
      store,
      streamId('referral_institution_dismissals', caller.tenantId),
      caller.tenantId,
    );
    expect(events.map((e) => e.type)).toEqual(['UnmatchedInstitutionDismissed', 'UnmatchedInstitutionRestored']);
  });

  it('answers 422 naming the fields, 403 for a member, writing nothing', async () => {
    const caller = owner();
    const empty = await injectAs({ app, testAuth }, caller, 'PUT', dismissals, {
      institution_code: null,
      institution_name: ' ',
      dismissed: true,
    });
    expect(empty.statusCode).toBe(422);
    expect(
      empty
        .json()
        .errors.map((e: { field: string }) => e.field)
        .sort(),
    ).toEqual(['institution_code', 'institution_name']);
    const noFlag = await injectAs({ app, testAuth }, caller, 'PUT', dismissals, { institution_name: '不明' });
    expect(noFlag.statusCode).toBe(422);
    expect(noFlag.json().errors.map((e: { field: string }) => e.field)).toContain('dismissed');
    const member = await injectAs({ app, testAuth }, { ...caller, role: 'member' }, 'PUT', dismissals, {
      institution_code: null,
      institution_name: '不明',
      dismissed: true,
    });
    expect(member.statusCode).toBe(403);
    expect(await tenantEventCount(db, caller.tenantId)).toBe(0);
  });
});
