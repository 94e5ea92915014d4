import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { assertServedConsistency } from '@renkei/contracts';
import { streamId } from '@renkei/event-store';
import { addTenant, issueAccessToken, updateTenant } from '../index.ts';
import { createIdentityFixture, type IdentityFixture } from '../testing/identity-fixture.ts';
import { identityDb } from '../db/identity.tables.ts';

let f: IdentityFixture;
let sakura: { tenantId: string; ownerId: string; memberIds: string[] };
let kaede: { tenantId: string; ownerId: string; memberIds: string[] };

beforeAll(async () => {
  f = await createIdentityFixture();
  sakura = await addTenant(f, {
    slug: 'sakura',
    name: 'さくら総合病院',
    ownerEmail: 'owner@sakura.example',
    ownerName: '佐藤 花子',
    password: 'owner-pass-1',
    plan: 'starter',
    featureOverrides: { emails: true },
    maxTagCount: 30,
    prefecture: '東京都',
    members: [
      { username: '鈴木 一郎', email: 'suzuki@sakura.example', password: 'member-pass-1' },
      { username: 'CS 担当', loginName: 'cs-support', password: 'member-pass-2', csAccount: true },
      { username: '退職 太郎', email: 'gone@sakura.example', password: 'member-pass-3' },
    ],
  });
  kaede = await addTenant(f, {
    slug: 'kaede',
    name: 'かえで記念病院',
    ownerEmail: 'owner@kaede.example',
    password: 'owner-pass-2',
    ipAllowList: ['10.0.0.0/8'],
  });
  await identityDb(f.db)
    .updateTable('identity.accounts')
    .set({ active: false })
    .where('id', '=', sakura.memberIds[2]!)
    .execute();
});

afterAll(async () => {
  await f?.close();
});

const mainToken = (tenantSlug: string, email: string) => issueAccessToken(f, { tenantSlug, email, audience: 'main' });

async function get(url: string, token?: string, ip = '127.0.0.1') {
  return f.identity.app.inject({
    method: 'GET',
    url,
    headers: { 'x-forwarded-for': ip, ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
}

describe('GET /api/current_user', () => {
  it('answers 401 without a token and with a token for another audience', async () => {
    expect((await get('/api/current_user')).statusCode).toBe(401);
    const queryToken = await issueAccessToken(f, {
      tenantSlug: 'sakura',
      email: 'owner@sakura.example',
      audience: 'query',
    });
    const response = await get('/api/current_user', queryToken);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ status: 401 });
  });

  it('answers the account, its tenant and the derived features', async () => {
    const response = await get('/api/current_user', await mainToken('sakura', 'owner@sakura.example'));
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({
      id: sakura.ownerId,
      username: '佐藤 花子',
      email: 'owner@sakura.example',
      login_name: null,
      role: 'owner',
      cs_account: false,
      tenant: { id: sakura.tenantId, name: 'さくら総合病院', plan: 'starter', max_tag_count: 30, prefecture: '東京都' },
      email_sender_allowed_addresses: [],
      default_facility_type_ids: [],
      own_department_id: null,
    });
    expect(body.features).toContain('sale_map');
    expect(body.features).toContain('emails');
    expect(body.features).not.toContain('data_analysis');
    expect(body.last_login_date).toBeNull();
  });

  it('takes off what 「CRMを利用する」 unticked turns off, in the token as on the screen, and gives it back', async () => {
    const member = sakura.memberIds[0]!;
    const flags = (enabled_crm: boolean, enabled_mc_map: boolean) =>
      identityDb(f.db)
        .updateTable('identity.accounts')
        .set({ enabled_crm, enabled_mc_map })
        .where('id', '=', member)
        .execute();
    await flags(false, false);
    const token = await mainToken('sakura', 'suzuki@sakura.example');
    const off = (await get('/api/current_user', token)).json().features as string[];
    for (const key of ['communications', 'tasks', 'action_lists', 'emails', 'communication_labels'])
      expect(off).not.toContain(key);
    // The institutions and their CRM page stay: the analysis links to them.
    expect(off).toContain('medical_institutions_search');
    expect(off).toContain('tags');
    // 診療圏マップを利用する, off here too, is no feature of the maps.
    expect(off).toContain('sale_map');
    expect((decodeJwt(token) as { features: string[] }).features).toEqual(off);
    // The owner's own features do not change.
    expect(
      (await get('/api/current_user', await mainToken('sakura', 'owner@sakura.example'))).json().features,
    ).toContain('communications');
    await flags(true, false);
    const on = (await get('/api/current_user', await mainToken('sakura', 'suzuki@sakura.example'))).json();
    expect(on.features).toContain('communications');
  });

  it("shows the tenant's admission period in days as its owners set it, the default before", async () => {
    const token = await mainToken('sakura', 'owner@sakura.example');
    const before = (await get('/api/current_user', token)).json();
    expect(before.tenant.max_referral_hospital_admission_period).toBe(90);
    const metadata = {
      tenant_id: sakura.tenantId,
      account_id: sakura.ownerId,
      correlation_id: sakura.tenantId,
      causation_id: null,
    };
    await f.store.append(
      streamId('referral_admission_period', sakura.tenantId),
      [
        { type: 'ReferralAdmissionPeriodChanged', data: { days: 60 }, metadata: { ...metadata, schema_version: 1 } },
        { type: 'ReferralAdmissionPeriodChanged', data: { days: 45 }, metadata: { ...metadata, schema_version: 1 } },
      ],
      { expectedRevision: 'no_stream' },
    );
    const after = (await get('/api/current_user', token)).json();
    expect(after.tenant.max_referral_hospital_admission_period).toBe(45);
    // Another tenant keeps its own (the default).
    const other = await get('/api/current_user', await mainToken('kaede', 'owner@kaede.example'), '10.1.2.3');
    expect(other.json().tenant.max_referral_hospital_admission_period).toBe(90);
  });
});

describe('profile', () => {
  it('reads and updates the username and notification settings, publishing the new name', async () => {
    const token = await mainToken('sakura', 'suzuki@sakura.example');
    const before = await get('/api/users/me/profile', token);
    expect(before.json()).toEqual({
      own_department_id: null,
      username: '鈴木 一郎',
      notification_settings: {
        enabled_notification: true,
        enabled_communication_reactions_summary: true,
        enabled_alerts_summary: true,
        enabled_medical_institution_report_alert: true,
      },
    });
    const settings = {
      enabled_notification: true,
      enabled_communication_reactions_summary: false,
      enabled_alerts_summary: true,
      enabled_medical_institution_report_alert: false,
    };
    const put = await f.identity.app.inject({
      method: 'PUT',
      url: '/api/users/me/profile',
      headers: { authorization: `Bearer ${token}` },
      payload: { username: '鈴木 一朗', notification_settings: settings },
    });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toEqual({ username: '鈴木 一朗', notification_settings: settings, own_department_id: null });
    expect((await get('/api/users/me/profile', token)).json().username).toBe('鈴木 一朗');

    const events = await f.store.readStream(streamId('account', sakura.memberIds[0]!), { tenantId: sakura.tenantId });
    expect(events.map((e) => e.type)).toEqual(['AccountRegistered', 'AccountUpdated']);
    expect(events[1]!.data).toMatchObject({ username: '鈴木 一朗', active: true });
    expect(JSON.stringify(events.map((e) => e.data))).not.toMatch(/argon2|password/);
  });

  it('refuses a bad body with 422 and Japanese field errors, changing nothing', async () => {
    const token = await mainToken('sakura', 'suzuki@sakura.example');
    const put = await f.identity.app.inject({
      method: 'PUT',
      url: '/api/users/me/profile',
      headers: { authorization: `Bearer ${token}` },
      payload: { username: '  ', notification_settings: { enabled_notification: 'yes' } },
    });
    expect(put.statusCode).toBe(422);
    const body = put.json();
    expect(body.errors.map((e: { field: string }) => e.field)).toContain('username');
    expect(body.errors.find((e: { field: string }) => e.field === 'username').message).toBe('氏名を入力してください');
    expect((await get('/api/users/me/profile', token)).json().username).toBe('鈴木 一朗');
  });
});

describe('own department (addition to the profile)', () => {
  const internal = '0b7c2a4e-3f51-4c1d-9a6e-1d2f3a4b5c01';
  const surgery = '0b7c2a4e-3f51-4c1d-9a6e-1d2f3a4b5c02';
  const kaedeDepartment = '0b7c2a4e-3f51-4c1d-9a6e-1d2f3a4b5c03';
  const settings = {
    enabled_notification: true,
    enabled_communication_reactions_summary: true,
    enabled_alerts_summary: true,
    enabled_medical_institution_report_alert: true,
  };

  async function replaceDepartments(tenantId: string, accountId: string, ids: string[]) {
    const stream = streamId('own_departments', tenantId);
    const existing = await f.store.readStream(stream, { tenantId }).catch(() => []);
    await f.store.append(
      stream,
      [
        {
          type: 'OwnDepartmentsReplaced',
          data: { own_departments: ids.map((id, i) => ({ id, name: `診療科${i}`, department_id: null })) },
          metadata: {
            tenant_id: tenantId,
            account_id: accountId,
            correlation_id: tenantId,
            causation_id: null,
            schema_version: 1,
          },
        },
      ],
      { expectedRevision: existing.length === 0 ? 'no_stream' : existing.length - 1 },
    );
  }

  const putProfile = (token: string, payload: object) =>
    f.identity.app.inject({
      method: 'PUT',
      url: '/api/users/me/profile',
      headers: { authorization: `Bearer ${token}` },
      payload,
    });

  it("sets, keeps, clears and refuses the account's own department; a removed one reads as null", async () => {
    await replaceDepartments(sakura.tenantId, sakura.ownerId, [internal, surgery]);
    await replaceDepartments(kaede.tenantId, kaede.ownerId, [kaedeDepartment]);
    const token = await mainToken('sakura', 'owner@sakura.example');
    const base = { username: '佐藤 花子', notification_settings: settings };

    const set = await putProfile(token, { ...base, own_department_id: surgery });
    expect(set.statusCode).toBe(200);
    expect(set.json().own_department_id).toBe(surgery);
    expect((await get('/api/users/me/profile', token)).json().own_department_id).toBe(surgery);
    expect((await get('/api/current_user', token)).json().own_department_id).toBe(surgery);

    // A client that does not send the field leaves it as it is.
    expect((await putProfile(token, base)).json().own_department_id).toBe(surgery);

    // Another tenant's department, or an id that is no department at all, is refused and changes nothing.
    for (const bad of [kaedeDepartment, 'not-a-uuid']) {
      const refused = await putProfile(token, { ...base, own_department_id: bad });
      expect(refused.statusCode).toBe(422);
      expect(refused.json().errors.map((e: { field: string }) => e.field)).toEqual(['own_department_id']);
    }
    expect((await get('/api/current_user', token)).json().own_department_id).toBe(surgery);

    // The tenant removes the department: the account's value reads as null, and can be set again.
    await replaceDepartments(sakura.tenantId, sakura.ownerId, [internal]);
    expect((await get('/api/current_user', token)).json().own_department_id).toBeNull();
    expect((await get('/api/users/me/profile', token)).json().own_department_id).toBeNull();
    expect((await putProfile(token, { ...base, own_department_id: internal })).json().own_department_id).toBe(internal);

    const cleared = await putProfile(token, { ...base, own_department_id: null });
    expect(cleared.json().own_department_id).toBeNull();
    expect((await get('/api/current_user', token)).json().own_department_id).toBeNull();
  });
});

describe('GET /api/staffs', () => {
  it('lists only the caller tenant staff, hiding CS and inactive accounts unless asked', async () => {
    const token = await mainToken('sakura', 'owner@sakura.example');
    const plain = (await get('/api/staffs', token)).json() as { id: string; name: string; cs_account: boolean }[];
    expect(plain.map((s) => s.id).sort()).toEqual([sakura.ownerId, sakura.memberIds[0]!].sort());
    const withCs = (await get('/api/staffs?include_cs_accounts=true', token)).json() as { id: string }[];
    expect(withCs.map((s) => s.id)).toContain(sakura.memberIds[1]);
    const all = (await get('/api/staffs?include_cs_accounts=true&include_inactive=true', token)).json() as {
      id: string;
    }[];
    expect(all).toHaveLength(4);

    const other = (
      await get(
        '/api/staffs?include_cs_accounts=true&include_inactive=true',
        await mainToken('kaede', 'owner@kaede.example'),
        '10.1.2.3',
      )
    ).json() as { id: string }[];
    expect(other.map((s) => s.id)).toEqual([kaede.ownerId]);
  });
});

describe('IP allow-list', () => {
  it('answers 403 IP_NOT_ALLOWED from an address outside the tenant list', async () => {
    const token = await mainToken('kaede', 'owner@kaede.example');
    const refused = await get('/api/current_user', token, '203.0.113.5');
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ status: 403, sub_code: 'IP_NOT_ALLOWED' });
    expect((await get('/api/current_user', token, '10.20.30.40')).statusCode).toBe(200);
    // A tenant without a list is reachable from anywhere.
    expect(
      (await get('/api/current_user', await mainToken('sakura', 'owner@sakura.example'), '203.0.113.5')).statusCode,
    ).toBe(200);
  });
});

describe('tenant registration', () => {
  it('publishes TenantRegistered with features and limits, and refuses a duplicate slug or email', async () => {
    const events = await f.store.readStream(streamId('tenant', sakura.tenantId), { tenantId: sakura.tenantId });
    expect(events[0]).toMatchObject({
      type: 'TenantRegistered',
      data: { slug: 'sakura', plan: 'starter', limits: { max_tag_count: 30, max_account_count: null } },
    });
    expect((events[0]!.data as { features: string[] }).features).toContain('emails');
    await expect(
      addTenant(f, { slug: 'sakura', name: 'x', ownerEmail: 'new@x.example', password: 'password-1' }),
    ).rejects.toMatchObject({ status: 409 });
    await expect(
      addTenant(f, { slug: 'other', name: 'x', ownerEmail: 'OWNER@sakura.example', password: 'password-1' }),
    ).rejects.toMatchObject({ status: 409 });
    expect(
      await identityDb(f.db)
        .selectFrom('identity.tenants')
        .select('slug')
        .where('slug', '=', 'other')
        .executeTakeFirst(),
    ).toBeUndefined();
  });
});

describe('tenant settings', () => {
  it('changes plan, overrides and allow-list, publishing TenantSettingsChanged', async () => {
    await updateTenant(f, 'sakura', { plan: 'growth', featureOverrides: { tags: false }, maxTagCount: 50 });
    const token = await mainToken('sakura', 'owner@sakura.example');
    const body = (await get('/api/current_user', token)).json();
    expect(body.tenant).toMatchObject({ plan: 'growth', max_tag_count: 50 });
    expect(body.features).toContain('data_analysis');
    expect(body.features).not.toContain('tags');
    const events = await f.store.readStream(streamId('tenant', sakura.tenantId), { tenantId: sakura.tenantId });
    expect(events.at(-1)).toMatchObject({
      type: 'TenantSettingsChanged',
      data: { plan: 'growth', limits: { max_tag_count: 50 }, enabled_phase: false },
    });
    await updateTenant(f, 'sakura', { ipAllowList: ['192.0.2.0/24'] });
    expect((await get('/api/current_user', token, '203.0.113.5')).statusCode).toBe(403);
    await updateTenant(f, 'sakura', { ipAllowList: [] });
    expect((await get('/api/current_user', token, '203.0.113.5')).statusCode).toBe(200);
    await expect(updateTenant(f, 'sakura', { ipAllowList: ['not-a-cidr'] })).rejects.toMatchObject({ status: 422 });
    await expect(updateTenant(f, 'nowhere', { demo: true })).rejects.toMatchObject({ status: 404 });
  });
});

describe('contract registry', () => {
  it('serves exactly the identity entries marked served', () => {
    expect(assertServedConsistency('identity', f.identity.app.servedEndpointIds())).toEqual({
      missingHandlers: [],
      unregisteredHandlers: [],
    });
  });
});
