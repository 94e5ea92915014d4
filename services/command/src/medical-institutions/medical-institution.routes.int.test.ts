import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { featureKeys, ownDepartmentsVersion, listVersion, type FeatureKey } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, newEventMetadata, streamId, type EventStore } from '@renkei/event-store';
import { generateInstitutionMaster, importInstitutionMaster } from '@renkei/institution-master';
import type { TestAuth } from '@renkei/service-kit/testing';
import { buildTestCommandApp, injectAs, tenantEventCount, type WriteMethod } from '../testing.ts';

let db: TestDatabase;
let store: EventStore;
let app: FastifyInstance;
let testAuth: TestAuth;
let institutions: string[];
let dataDir: string;

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-cmd-data-'));
  process.env.RENKEI_DATA_DIR = dataDir;
  ({ app, testAuth } = await buildTestCommandApp(db, store));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-cmd-'));
  await generateInstitutionMaster(path.join(dir, 'm.csv'), { count: 20, seed: 5 });
  await importInstitutionMaster(db, path.join(dir, 'm.csv'));
  fs.rmSync(dir, { recursive: true });
  const { rows } = await sql<{ id: string }>`SELECT id FROM ref.medical_institutions ORDER BY code`.execute(db.kysely);
  institutions = rows.map((r) => r.id);
});

afterAll(async () => {
  await app?.close();
  await store?.close();
  await db?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

interface Caller {
  tenantId: string;
  accountId: string;
  role?: 'owner' | 'member';
  features?: FeatureKey[];
}
const newTenant = (): Caller => ({ tenantId: randomUUID(), accountId: randomUUID() });

const call = (caller: Caller, method: WriteMethod, url: string, payload?: unknown, headers?: Record<string, string>) =>
  injectAs({ app, testAuth }, caller, method, url, payload, headers);

const eventCount = (tenantId: string) => tenantEventCount(db, tenantId);

async function enablePhase(tenantId: string) {
  await store.append(
    streamId('tenant', tenantId),
    [
      {
        type: 'TenantSettingsChanged',
        data: {
          tenant_id: tenantId,
          slug: 't',
          name: 'テスト病院',
          plan: 'growth',
          features: [],
          limits: { max_account_count: null, max_tag_count: null },
          enabled_phase: true,
          medical_institution_id: null,
        },
        metadata: newEventMetadata(tenantId),
      },
    ],
    { expectedRevision: 'any' },
  );
}

describe('no accepted write carries what a read model cannot store', () => {
  it('refuses phase masters naming one id twice, and writes nothing', async () => {
    const t = { ...newTenant(), role: 'owner' as const };
    await enablePhase(t.tenantId);
    const saved = await call(t, 'PUT', '/api/phase_masters', { phase_masters: [{ name: '訪問済' }] });
    expect(saved.statusCode, saved.body).toBe(200);
    const id = saved.json()[0].id;
    const before = await eventCount(t.tenantId);
    const dup = await call(t, 'PUT', '/api/phase_masters', {
      phase_masters: [
        { id, name: '訪問済' },
        { id, name: '連携中' },
      ],
    });
    expect(dup.statusCode, dup.body).toBe(422);
    expect(dup.json().errors).toEqual([expect.objectContaining({ field: 'phase_masters.1.id' })]);
    expect(await eventCount(t.tenantId)).toBe(before);
  });

  it('refuses own departments naming one id twice, and writes nothing', async () => {
    const t = { ...newTenant(), role: 'owner' as const };
    const saved = await call(t, 'PUT', '/api/own_medical_institution/departments', {
      own_departments: [{ name: '内科', department_id: null }],
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const id = saved.json()[0].id;
    const before = await eventCount(t.tenantId);
    const dup = await call(t, 'PUT', '/api/own_medical_institution/departments', {
      own_departments: [
        { id, name: '内科', department_id: null },
        { id, name: '外科', department_id: null },
      ],
    });
    expect(dup.statusCode, dup.body).toBe(422);
    expect(dup.json().errors).toEqual([expect.objectContaining({ field: 'own_departments.1.id' })]);
    expect(await eventCount(t.tenantId)).toBe(before);
  });

  it('refuses a date label value of year 0000 (a member can send it), and writes nothing', async () => {
    const t = newTenant();
    const label = await call(t, 'POST', '/api/medical_institution_labels', {
      name: '協定締結日',
      component_type: 'date',
    });
    expect(label.statusCode, label.body).toBe(201);
    const before = await eventCount(t.tenantId);
    const bad = await call(
      { ...t, role: 'member' },
      'POST',
      `/api/medical_institutions/${institutions[4]}/label_values`,
      {
        label_values: [{ label_id: label.json().id, date_value: '0000-01-01' }],
      },
    );
    expect(bad.statusCode, bad.body).toBe(422);
    expect(bad.json().errors[0].field).toBe('label_values.0.date_value');
    expect(await eventCount(t.tenantId)).toBe(before);
  });
});

describe('memo and special note', () => {
  it('saves a memo with who and version, and answers the concurrent loser 409 without losing the winner', async () => {
    const t = newTenant();
    const url = `/api/medical_institutions/${institutions[0]}/memo`;
    const first = await call(t, 'PUT', url, { content: '初回訪問済み' }, { 'if-match': '0' });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ content: '初回訪問済み', version: 1, updated_by: { id: t.accountId } });
    expect(first.headers['x-position']).toBeTruthy();
    const [a, b] = await Promise.all([
      call(t, 'PUT', url, { content: 'Aの編集' }, { 'if-match': '1' }),
      call(t, 'PUT', url, { content: 'Bの編集' }, { 'if-match': '1' }),
    ]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 409]);
    const winner = a.statusCode === 200 ? 'Aの編集' : 'Bの編集';
    const events = await store.readStream(
      (
        await sql<{
          stream_id: string;
        }>`SELECT DISTINCT stream_id FROM es.events WHERE tenant_id = ${t.tenantId}`.execute(db.kysely)
      ).rows[0]!.stream_id,
      { tenantId: t.tenantId },
    );
    expect(events.map((e) => (e.data as { content: string }).content)).toEqual(['初回訪問済み', winner]);
  });

  it('rejects a too long special note with 422 and writes nothing; unknown institution is 404', async () => {
    const t = newTenant();
    const res = await call(t, 'PUT', `/api/medical_institutions/${institutions[0]}/special_note`, {
      content: 'あ'.repeat(2001),
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].field).toBe('content');
    expect(await eventCount(t.tenantId)).toBe(0);
    const missing = await call(t, 'PUT', `/api/medical_institutions/${randomUUID()}/special_note`, { content: 'x' });
    expect(missing.statusCode).toBe(404);
  });
});

describe('phase, tags and label values', () => {
  it('needs enabled_phase; owners set phase masters; a phase change is recorded', async () => {
    const t = newTenant();
    expect((await call(t, 'PUT', '/api/phase_masters', { phase_masters: [{ name: '訪問済' }] })).statusCode).toBe(403);
    await enablePhase(t.tenantId);
    expect(
      (await call({ ...t, role: 'member' }, 'PUT', '/api/phase_masters', { phase_masters: [{ name: '訪問済' }] }))
        .statusCode,
    ).toBe(403);
    const masters = await call(t, 'PUT', '/api/phase_masters', {
      phase_masters: [{ name: '訪問済' }, { name: '連携中', description: '紹介あり' }],
    });
    expect(masters.statusCode, masters.body).toBe(200);
    const [visited] = masters.json() as { id: string; name: string }[];
    const dup = await call(t, 'PUT', '/api/phase_masters', { phase_masters: [{ name: 'A' }, { name: 'A' }] });
    expect(dup.statusCode).toBe(422);

    // Two owners edit the list they loaded: the second save, based on the outdated list, is a 409.
    const loaded = masters.json() as { id: string; name: string; description: string }[];
    expect(masters.headers.etag).toBe(`"${listVersion(loaded)}"`);
    const first = await call(
      t,
      'PUT',
      '/api/phase_masters',
      { phase_masters: [...loaded, { name: '協定締結' }] },
      {
        'if-match': masters.headers.etag as string,
      },
    );
    expect(first.statusCode, first.body).toBe(200);
    const eventsBefore = await tenantEventCount(db, t.tenantId);
    const stale = await call(
      t,
      'PUT',
      '/api/phase_masters',
      { phase_masters: loaded.slice(1) },
      {
        'if-match': masters.headers.etag as string,
      },
    );
    expect(stale.statusCode).toBe(409);
    expect(stale.json().message).toContain('他のユーザー');
    expect(await tenantEventCount(db, t.tenantId)).toBe(eventsBefore);
    const fresh = await call(
      t,
      'PUT',
      '/api/phase_masters',
      { phase_masters: loaded },
      {
        'if-match': first.headers.etag as string,
      },
    );
    expect(fresh.statusCode, fresh.body).toBe(200);
    const res = await call(t, 'PUT', `/api/medical_institutions/${institutions[1]}/phase`, {
      phase_master_id: visited!.id,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      phase_master_id: visited!.id,
      phase_name: '訪問済',
      changed_user: { id: t.accountId },
    });
    const unknown = await call(t, 'PUT', `/api/medical_institutions/${institutions[1]}/phase`, {
      phase_master_id: randomUUID(),
    });
    expect(unknown.statusCode).toBe(422);
  });

  it('guards phase and tags with If-Match on their own versions: a stale one is a 409 and writes nothing', async () => {
    const t = newTenant();
    await enablePhase(t.tenantId);
    const masters = (
      await call(t, 'PUT', '/api/phase_masters', { phase_masters: [{ name: '訪問済' }, { name: '連携中' }] })
    ).json() as { id: string }[];
    const tag = (await call(t, 'POST', '/api/tags', { name: '重点' })).json();
    const phaseUrl = `/api/medical_institutions/${institutions[3]}/phase`;
    const tagsUrl = `/api/medical_institutions/${institutions[3]}/tags`;

    const phase = await call(t, 'PUT', phaseUrl, { phase_master_id: masters[0]!.id }, { 'if-match': '"0"' });
    expect(phase.statusCode, phase.body).toBe(200);
    expect(phase.headers.etag).toBe('"1"');
    const tags = await call(t, 'PUT', tagsUrl, { tag_ids: [tag.id] }, { 'if-match': '"0"' });
    expect(tags.statusCode, tags.body).toBe(200);
    // A tags save does not make the phase stale, nor the reverse.
    expect(tags.headers.etag).toBe('"1"');

    const before = await eventCount(t.tenantId);
    for (const [url, body] of [
      [phaseUrl, { phase_master_id: masters[1]!.id }],
      [tagsUrl, { tag_ids: [] }],
    ] as const) {
      expect((await call(t, 'PUT', url, body, { 'if-match': '"0"' })).statusCode).toBe(409);
      expect((await call(t, 'PUT', url, body, { 'if-match': '"987654"' })).statusCode).toBe(409);
    }
    expect(await eventCount(t.tenantId)).toBe(before);

    // Concurrent saves from the same version: one wins, the others are told 409.
    const racers = await Promise.all(
      masters.flatMap((m) => [
        call(t, 'PUT', phaseUrl, { phase_master_id: m.id === masters[0]!.id ? null : m.id }, { 'if-match': '"1"' }),
        call(t, 'PUT', phaseUrl, { phase_master_id: null }, { 'if-match': '"1"' }),
      ]),
    );
    expect(racers.filter((r) => r.statusCode === 200)).toHaveLength(1);
    expect(racers.filter((r) => r.statusCode === 409)).toHaveLength(racers.length - 1);
    // Without If-Match the last save wins, as before.
    expect((await call(t, 'PUT', tagsUrl, { tag_ids: [] })).statusCode).toBe(200);
  });

  it('answers a label-value retry (one Idempotency-Key) as the first, once; the key with another body is a 422', async () => {
    const t = newTenant();
    const label = (
      await call(t, 'POST', '/api/medical_institution_labels', { name: '備考', component_type: 'text' })
    ).json();
    const url = `/api/medical_institutions/${institutions[5]}/label_values`;
    const headers = { 'idempotency-key': 'values-1' };
    const body = { label_values: [{ label_id: label.id, text_value: '初回' }] };
    const first = await call(t, 'POST', url, body, headers);
    expect(first.statusCode, first.body).toBe(200);
    const before = await eventCount(t.tenantId);
    const retry = await call(t, 'POST', url, body, headers);
    expect(retry.json()).toEqual(first.json());
    const other = await call(t, 'POST', url, { label_values: [{ label_id: label.id, text_value: '別' }] }, headers);
    expect(other.statusCode).toBe(422);
    expect(await eventCount(t.tenantId)).toBe(before);
  });

  it('sets tags of this tenant only; another tenant’s tag is a 422', async () => {
    const t = newTenant();
    const other = newTenant();
    const tag = await call(t, 'POST', '/api/tags', { name: '重点' });
    const foreign = await call(other, 'POST', '/api/tags', { name: '他院' });
    const url = `/api/medical_institutions/${institutions[2]}/tags`;
    const ok = await call(t, 'PUT', url, { tag_ids: [tag.json().id] });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toEqual([{ id: tag.json().id, name: '重点' }]);
    const before = await eventCount(t.tenantId);
    const bad = await call(t, 'PUT', url, { tag_ids: [foreign.json().id] });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('tag_ids.0');
    expect(await eventCount(t.tenantId)).toBe(before);
  });

  it('a tag write answers how many institutions carry the tag, counted by the command side', async () => {
    const t = newTenant();
    const tag = (await call(t, 'POST', '/api/tags', { name: '紹介元' })).json();
    const other = (await call(t, 'POST', '/api/tags', { name: '逆紹介先' })).json();
    for (const i of [5, 6, 7])
      expect(
        (await call(t, 'PUT', `/api/medical_institutions/${institutions[i]}/tags`, { tag_ids: [tag.id] })).statusCode,
      ).toBe(200);
    // Replacing an institution's tags moves both counts; a repeat of the same set moves nothing.
    await call(t, 'PUT', `/api/medical_institutions/${institutions[7]}/tags`, { tag_ids: [other.id] });
    await call(t, 'PUT', `/api/medical_institutions/${institutions[7]}/tags`, { tag_ids: [other.id] });
    const renamed = await call(t, 'PUT', `/api/tags/${tag.id}`, { name: '紹介元（重点）', description: '' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json().medical_institution_count).toBe(2);
    const second = await call(t, 'PUT', `/api/tags/${other.id}`, { name: '逆紹介先', description: '説明' });
    expect(second.json().medical_institution_count).toBe(1);
  });

  it('creates labels, checks values per component type, and keeps other labels’ values', async () => {
    const t = newTenant();
    const sel = await call(t, 'POST', '/api/medical_institution_labels', {
      name: '重点度',
      component_type: 'select',
      selections: [{ label: 'A' }, { label: 'B' }],
    });
    expect(sel.statusCode, sel.body).toBe(201);
    const int = await call(t, 'POST', '/api/medical_institution_labels', { name: '医師数', component_type: 'integer' });
    const noChoices = await call(t, 'POST', '/api/medical_institution_labels', { name: 'x', component_type: 'radio' });
    expect(noChoices.statusCode).toBe(422);
    const url = `/api/medical_institutions/${institutions[3]}/label_values`;
    const a = sel.json().selections[0].id;
    const ok = await call(t, 'POST', url, {
      label_values: [
        { label_id: sel.json().id, selection_id: a },
        { label_id: int.json().id, integer_value: 12 },
      ],
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toHaveLength(2);
    // The answer names the labels of the request only (values of other labels may come from imports
    // this stream does not hold; GET answers them all).
    const one = await call(t, 'POST', url, { label_values: [{ label_id: int.json().id, integer_value: 13 }] });
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json()).toEqual([expect.objectContaining({ label_id: int.json().id, integer_value: 13 })]);
    const before = await eventCount(t.tenantId);
    const bad = await call(t, 'POST', url, { label_values: [{ label_id: int.json().id, text_value: 'abc' }] });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('label_values.0.integer_value');
    expect(await eventCount(t.tenantId)).toBe(before);
    const again = await call(t, 'POST', url, {
      label_values: [
        { label_id: sel.json().id, selection_id: a },
        { label_id: int.json().id, integer_value: 12 },
      ],
    });
    expect(again.statusCode).toBe(200);
    // Recorded even though this stream holds the same values: an import may have changed them since
    // (the projection writes no history line for a save that changes nothing).
    expect(await eventCount(t.tenantId)).toBe(before + 1);
    const cleared = await call(t, 'POST', url, { label_values: [{ label_id: int.json().id }] });
    expect(cleared.statusCode, cleared.body).toBe(200);
    // The cleared label has no value left to answer.
    expect(cleared.json()).toEqual([]);
    const order = await call(t, 'PUT', '/api/medical_institution_labels/orders', {
      label_ids: [int.json().id, sel.json().id],
    });
    expect(order.statusCode, order.body).toBe(200);
    expect(order.json().map((l: { name: string }) => l.name)).toEqual(['医師数', '重点度']);
    const otherTenant = await call(newTenant(), 'PUT', `/api/medical_institution_labels/${sel.json().id}`, {
      name: 'x',
      component_type: 'select',
      selections: [{ label: 'A' }],
    });
    expect(otherTenant.statusCode).toBe(404);
  });
});

describe('doctors', () => {
  it('adds, validates, updates and removes a doctor; other tenants and institutions get 404', async () => {
    const t = newTenant();
    const base = `/api/medical_institutions/${institutions[4]}/doctors`;
    const bad = await call(t, 'POST', base, { name: '', email: 'not-mail', phone_number: '12' });
    expect(bad.statusCode).toBe(422);
    expect(
      bad
        .json()
        .errors.map((e: { field: string }) => e.field)
        .sort(),
    ).toEqual(['email', 'name', 'phone_number']);
    expect(await eventCount(t.tenantId)).toBe(0);
    const created = await call(t, 'POST', base, {
      name: '山田 太郎',
      division: '循環器内科',
      position: '部長',
      email: 'yamada@example.jp',
      phone_number: '054-123-4567',
    });
    expect(created.statusCode, created.body).toBe(201);
    const doctor = created.json();
    expect(doctor).toMatchObject({ name: '山田 太郎', honorific: '先生', version: 0 });
    const updated = await call(
      t,
      'PUT',
      `${base}/${doctor.id}`,
      { name: '山田 太郎', position: '院長' },
      { 'if-match': '0' },
    );
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json()).toMatchObject({ position: '院長', version: 1 });
    expect((await call(t, 'PUT', `${base}/${doctor.id}`, { name: 'x' }, { 'if-match': '0' })).statusCode).toBe(409);
    expect((await call(newTenant(), 'DELETE', `${base}/${doctor.id}`)).statusCode).toBe(404);
    expect(
      (await call(t, 'DELETE', `/api/medical_institutions/${institutions[5]}/doctors/${doctor.id}`)).statusCode,
    ).toBe(404);
    expect((await call(t, 'DELETE', `${base}/${doctor.id}`)).statusCode).toBe(204);
    expect((await call(t, 'DELETE', `${base}/${doctor.id}`)).statusCode).toBe(404);
  });
});

describe('own departments', () => {
  it('keeps ids of existing departments when the list is replaced', async () => {
    const t = newTenant();
    const first = await call(t, 'PUT', '/api/own_medical_institution/departments', {
      own_departments: [{ name: '循環器内科', department_id: '01' }],
    });
    expect(first.statusCode, first.body).toBe(200);
    const id = first.json()[0].id;
    const second = await call(t, 'PUT', '/api/own_medical_institution/departments', {
      own_departments: [{ name: '整形外科' }, { id, name: '循環器内科' }],
    });
    expect(second.json().map((d: { id: string; order: number }) => [d.id === id, d.order])).toEqual([
      [false, 0],
      [true, 1],
    ]);
  });

  it('refuses a save based on a list another owner has changed since (If-Match), and writes nothing', async () => {
    const t = newTenant();
    const loaded = await call(t, 'PUT', '/api/own_medical_institution/departments', {
      own_departments: [{ name: '循環器内科', department_id: '01' }],
    });
    const list = loaded.json() as { id: string; name: string; department_id: string | null }[];
    expect(loaded.headers.etag).toBe(`"${ownDepartmentsVersion(list)}"`);
    const first = await call(
      t,
      'PUT',
      '/api/own_medical_institution/departments',
      { own_departments: [...list, { name: '整形外科' }] },
      { 'if-match': loaded.headers.etag as string },
    );
    expect(first.statusCode, first.body).toBe(200);
    const eventsBefore = await tenantEventCount(db, t.tenantId);
    // A department code change alone is a change of the list too.
    const stale = await call(
      t,
      'PUT',
      '/api/own_medical_institution/departments',
      { own_departments: [{ ...list[0]!, department_id: '02' }] },
      { 'if-match': loaded.headers.etag as string },
    );
    expect(stale.statusCode).toBe(409);
    expect(stale.json().message).toContain('他のユーザー');
    expect(await tenantEventCount(db, t.tenantId)).toBe(eventsBefore);
    const fresh = await call(
      t,
      'PUT',
      '/api/own_medical_institution/departments',
      { own_departments: [{ ...list[0]!, department_id: '02' }] },
      { 'if-match': first.headers.etag as string },
    );
    expect(fresh.statusCode, fresh.body).toBe(200);
    expect(fresh.json()).toMatchObject([{ id: list[0]!.id, department_id: '02' }]);
  });
});

describe('label value import upload', () => {
  const multipart = (filename: string, content: Buffer, extra: Record<string, string> = {}) => {
    const boundary = '----renkei' + randomUUID();
    const parts = [
      ...Object.entries(extra).map(([k, v]) =>
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`),
      ),
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: text/csv\r\n\r\n`,
      ),
      content,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ];
    return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
  };

  it('keeps the file read-only under the data dir and opens a waiting import record', async () => {
    const t = newTenant();
    const body = multipart('ラベル値.csv', Buffer.from('医療機関コード,重点度\r\n'), { encoding: 'utf-8' });
    const token = await testAuth.token({ ...t, features: [...featureKeys] });
    const res = await app.inject({
      method: 'POST',
      url: '/api/imports/medical_institution_label_values',
      payload: body.payload,
      headers: { ...body.headers, authorization: `Bearer ${token}` },
    });
    expect(res.statusCode, res.body).toBe(202);
    const record = res.json();
    expect(record).toMatchObject({
      filename: 'ラベル値.csv',
      status: 'waiting',
      import_type: 'medical_institution_label_value',
    });
    const stored = path.join(dataDir, 'imports', t.tenantId, record.id, 'ラベル値.csv');
    expect(fs.readFileSync(stored, 'utf8')).toBe('医療機関コード,重点度\r\n');
    expect(fs.statSync(stored).mode & 0o222).toBe(0);
    const [event] = await store.readStream(`medical_institution_label_value_import-${record.id}`, {
      tenantId: t.tenantId,
    });
    expect(event!.data).toMatchObject({ import_id: record.id, encoding: 'utf-8', stored_path: stored });
  });

  it('answers 422 without a file and writes nothing', async () => {
    const t = newTenant();
    const boundary = 'x' + randomUUID();
    const token = await testAuth.token({ ...t, features: [...featureKeys] });
    const res = await app.inject({
      method: 'POST',
      url: '/api/imports/medical_institution_label_values',
      payload: `--${boundary}\r\nContent-Disposition: form-data; name="encoding"\r\n\r\nutf-8\r\n--${boundary}--\r\n`,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].field).toBe('file');
    expect(await eventCount(t.tenantId)).toBe(0);
  });
});
