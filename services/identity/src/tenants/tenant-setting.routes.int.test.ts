import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { streamId } from '@renkei/event-store';
import { addTenant, issueAccessToken } from '../index.ts';
import { identityDb } from '../db/identity.tables.ts';
import { createIdentityFixture, type IdentityFixture } from '../testing/identity-fixture.ts';

let f: IdentityFixture;
let tenantId: string;
let csToken: string;
let ownerToken: string;

beforeAll(async () => {
  f = await createIdentityFixture();
  ({ tenantId } = await addTenant(f, {
    slug: 'sakura',
    name: 'さくら総合病院',
    ownerEmail: 'owner@sakura.example',
    password: 'owner-pass-1',
    members: [{ username: 'CS 担当', loginName: 'cs-support', password: 'cs-pass-01', csAccount: true }],
  }));
  csToken = await issueAccessToken(f, { tenantSlug: 'sakura', email: 'cs-support', audience: 'main' });
  ownerToken = await issueAccessToken(f, { tenantSlug: 'sakura', email: 'owner@sakura.example', audience: 'main' });
});

afterAll(async () => {
  await f?.close();
});

const call = (method: 'GET' | 'PUT', url: string, token: string, payload?: object) =>
  f.identity.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${token}` },
    ...(payload ? { payload } : {}),
  });

const input = {
  name: 'さくら総合病院',
  plan: 'standard202211',
  features_off: [],
  medical_institution_id: null,
  group_medical_institution_ids: [],
  is_group: false,
  enabled_phase: false,
  max_account_count: null,
  max_tag_count: null,
  email_sender_allowed_addresses: [],
  ip_allow_list: [],
};

describe('/api/tenant_setting', () => {
  it('is the support account’s alone', async () => {
    const denied = await call('GET', '/api/tenant_setting', ownerToken);
    expect(denied.statusCode).toBe(403);
    const own = await call('GET', '/api/tenant_setting', csToken);
    expect(own.statusCode).toBe(200);
    expect(own.json()).toMatchObject({
      name: 'さくら総合病院',
      plan: 'standard202211',
      ip_allow_list: [],
      client_ip: '127.0.0.1',
    });
  });

  it('saves the settings, records who changed what, and publishes the change', async () => {
    const saved = await call('PUT', '/api/tenant_setting', csToken, {
      ...input,
      name: 'さくら総合病院グループ',
      plan: 'basic',
      features_off: ['tags'],
      max_account_count: 30,
      enabled_phase: true,
      email_sender_allowed_addresses: ['renkei@sakura.example'],
      ip_allow_list: ['127.0.0.0/8', '2001:db8::/32'],
    });
    expect(saved.statusCode).toBe(200);
    expect(saved.json()).toMatchObject({
      name: 'さくら総合病院グループ',
      plan: 'basic',
      features_off: ['tags'],
      max_account_count: 30,
    });
    expect(saved.json().features).not.toContain('tags');

    const history = (await call('GET', '/api/tenant_setting/histories', csToken)).json();
    expect(history.meta.total_count).toBe(1);
    expect(history.data[0].changed_by).toBe('CS 担当');
    expect(history.data[0].changes).toEqual(
      expect.arrayContaining([
        { field: 'name', before: 'さくら総合病院', after: 'さくら総合病院グループ' },
        { field: 'ip_allow_list', before: '', after: '127.0.0.0/8, 2001:db8::/32' },
        { field: 'feature_overrides', before: '', after: 'tags' },
      ]),
    );
    const events = await f.store.readStream(streamId('tenant', tenantId), { tenantId });
    expect(events.at(-1)).toMatchObject({ type: 'TenantSettingsChanged', data: { name: 'さくら総合病院グループ' } });
  });

  it('refuses a malformed CIDR and an institution the master does not hold, writing nothing', async () => {
    const before = (await call('GET', '/api/tenant_setting/histories', csToken)).json().meta.total_count;
    const bad = await call('PUT', '/api/tenant_setting', csToken, {
      ...input,
      ip_allow_list: ['127.0.0.1', '10.0.0.0/33'],
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors).toEqual([
      { field: 'ip_allow_list.1', message: 'IPアドレスの形式が正しくありません: 10.0.0.0/33' },
    ]);
    const unknown = await call('PUT', '/api/tenant_setting', csToken, {
      ...input,
      medical_institution_id: '7d3c2d8e-8f4e-4a55-9a3e-1c1d1e1f1a1b',
    });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().errors[0].field).toBe('medical_institution_id');
    expect((await call('GET', '/api/tenant_setting/histories', csToken)).json().meta.total_count).toBe(before);
  });

  it('names the own institution in the setting and in the change history, not by its id', async () => {
    const own = '3f0c6f7e-2b1a-4c5d-9e8f-0a1b2c3d4e5f';
    await sql`CREATE SCHEMA IF NOT EXISTS ref`.execute(identityDb(f.db));
    await sql`CREATE TABLE ref.medical_institutions (id uuid PRIMARY KEY, name text NOT NULL)`.execute(
      identityDb(f.db),
    );
    await sql`INSERT INTO ref.medical_institutions (id, name) VALUES (${own}, 'さくら総合病院本院')`.execute(
      identityDb(f.db),
    );
    const saved = await call('PUT', '/api/tenant_setting', csToken, { ...input, medical_institution_id: own });
    expect(saved.statusCode).toBe(200);
    expect(saved.json().medical_institution).toEqual({ id: own, name: 'さくら総合病院本院' });
    const history = (await call('GET', '/api/tenant_setting/histories', csToken)).json();
    expect(history.data[0].changes).toContainEqual({
      field: 'medical_institution_id',
      before: '',
      after: 'さくら総合病院本院',
    });
  });

  it('asks before saving a list that shuts out the saving address, then enforces it', async () => {
    const list = { ...input, ip_allow_list: ['203.0.113.0/24'] };
    const asked = await call('PUT', '/api/tenant_setting', csToken, list);
    expect(asked.statusCode).toBe(422);
    expect(asked.json().sub_code).toBe('IP_SELF_EXCLUDED');
    expect(asked.json().errors[0]).toMatchObject({ field: 'ip_allow_list' });
    expect(asked.json().errors[0].message).toContain('127.0.0.1');
    expect((await call('GET', '/api/tenant_setting', csToken)).json().ip_allow_list).not.toEqual(['203.0.113.0/24']);

    const confirmed = await call('PUT', '/api/tenant_setting', csToken, { ...list, confirm_ip_exclusion: true });
    expect(confirmed.statusCode).toBe(200);
    const shut = await call('GET', '/api/current_user', ownerToken);
    expect(shut.statusCode).toBe(403);
    expect(shut.json().sub_code).toBe('IP_NOT_ALLOWED');
  });
});
