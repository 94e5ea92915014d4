import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamId } from '@renkei/event-store';
import { addTenant, issueAccessToken } from '../index.ts';
import { createIdentityFixture, type IdentityFixture } from '../testing/identity-fixture.ts';

let f: IdentityFixture;
let tenantId: string;
let csToken: string;
let memberToken: string;
let otherToken: string;

// The smallest valid PNG (1×1, transparent).
const png = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

beforeAll(async () => {
  f = await createIdentityFixture();
  ({ tenantId } = await addTenant(f, {
    slug: 'sakura',
    name: 'さくら総合病院',
    ownerEmail: 'owner@sakura.example',
    password: 'owner-pass-1',
    members: [
      { username: 'CS 担当', loginName: 'cs-support', password: 'cs-pass-01', csAccount: true },
      { username: '一般', loginName: 'member', password: 'member-pass-1' },
    ],
  }));
  await addTenant(f, {
    slug: 'kaede',
    name: 'かえで病院',
    ownerEmail: 'owner@kaede.example',
    password: 'owner-pass-1',
  });
  csToken = await issueAccessToken(f, { tenantSlug: 'sakura', email: 'cs-support', audience: 'main' });
  memberToken = await issueAccessToken(f, { tenantSlug: 'sakura', email: 'member', audience: 'main' });
  otherToken = await issueAccessToken(f, { tenantSlug: 'kaede', email: 'owner@kaede.example', audience: 'main' });
});

afterAll(async () => {
  await f?.close();
});

const call = (method: 'GET' | 'PUT' | 'DELETE', url: string, token: string, payload?: object) =>
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

describe('the tenant logo', () => {
  it('is refused unless it is a PNG, JPEG, GIF or WebP within the size limit, writing nothing', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const refused = await call('PUT', '/api/tenant_setting/logo', csToken, { data: svg.toString('base64') });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().errors).toEqual([
      { field: 'data', message: 'ロゴ画像はPNG・JPEG・GIF・WebPのいずれかにしてください' },
    ]);
    const huge = Buffer.concat([png, Buffer.alloc(600 * 1024)]);
    const tooBig = await call('PUT', '/api/tenant_setting/logo', csToken, { data: huge.toString('base64') });
    expect(tooBig.statusCode).toBe(422);
    expect(tooBig.json().errors[0].field).toBe('data');
    const notBase64 = await call('PUT', '/api/tenant_setting/logo', csToken, { data: '<html>' });
    expect(notBase64.statusCode).toBe(422);
    expect((await call('GET', '/api/tenant_setting', csToken)).json().logo).toBeNull();
    expect((await call('GET', '/api/tenant_logo', memberToken)).statusCode).toBe(404);
  });

  it('is set by the support account only, and served to its own tenant only, as the type its bytes say', async () => {
    const byMember = await call('PUT', '/api/tenant_setting/logo', memberToken, { data: png.toString('base64') });
    expect(byMember.statusCode).toBe(403);

    const saved = await call('PUT', '/api/tenant_setting/logo', csToken, { data: png.toString('base64') });
    expect(saved.statusCode).toBe(200);
    const logo = saved.json().logo as string;
    expect(logo).toMatch(/^\/tenant_logo\?v=[0-9a-f]{16}$/);

    const me = (await call('GET', '/api/current_user', memberToken)).json();
    expect(me.tenant.logo).toBe(logo);
    const image = await call('GET', `/api${logo}`, memberToken);
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    expect(image.headers['x-content-type-options']).toBe('nosniff');
    expect(image.rawPayload.equals(png)).toBe(true);

    // Another tenant's user gets its own tenant's (absent) logo, whatever the URL says.
    expect((await call('GET', `/api${logo}`, otherToken)).statusCode).toBe(404);
    expect((await call('GET', '/api/current_user', otherToken)).json().tenant.logo).toBeNull();
    expect((await f.identity.app.inject({ method: 'GET', url: `/api${logo}` })).statusCode).toBe(401);

    const history = (await call('GET', '/api/tenant_setting/histories', csToken)).json();
    expect(history.data[0].changes).toEqual([{ field: 'logo', before: '', after: logo.split('v=')[1] }]);
    const events = await f.store.readStream(streamId('tenant', tenantId), { tenantId });
    expect(events.at(-1)?.type).toBe('TenantSettingsChanged');
  });

  it('is removed by the support account', async () => {
    expect((await call('DELETE', '/api/tenant_setting/logo', memberToken)).statusCode).toBe(403);
    expect((await call('DELETE', '/api/tenant_setting/logo', csToken)).statusCode).toBe(204);
    expect((await call('GET', '/api/tenant_logo', memberToken)).statusCode).toBe(404);
    expect((await call('GET', '/api/current_user', memberToken)).json().tenant.logo).toBeNull();
  });
});

describe('the prefecture and the map centre', () => {
  it('are saved, shown to the tenant’s users and kept when a client does not send them', async () => {
    const saved = await call('PUT', '/api/tenant_setting', csToken, {
      ...input,
      prefecture: '北海道',
      latitude: 43.06,
      longitude: 141.35,
    });
    expect(saved.statusCode).toBe(200);
    expect(saved.json()).toMatchObject({ prefecture: '北海道', latitude: 43.06, longitude: 141.35 });
    expect((await call('GET', '/api/current_user', memberToken)).json().tenant).toMatchObject({
      prefecture: '北海道',
      latitude: 43.06,
      longitude: 141.35,
    });
    const history = (await call('GET', '/api/tenant_setting/histories', csToken)).json();
    expect(history.data[0].changes).toEqual(
      expect.arrayContaining([
        { field: 'prefecture', before: '', after: '北海道' },
        { field: 'map_center', before: '', after: '43.06, 141.35' },
      ]),
    );
    const kept = await call('PUT', '/api/tenant_setting', csToken, { ...input, name: 'さくら病院' });
    expect(kept.json()).toMatchObject({ name: 'さくら病院', prefecture: '北海道', latitude: 43.06 });
    const cleared = await call('PUT', '/api/tenant_setting', csToken, {
      ...input,
      prefecture: null,
      latitude: null,
      longitude: null,
    });
    expect(cleared.json()).toMatchObject({ prefecture: null, latitude: null, longitude: null });
  });

  it('refuses an unknown prefecture, a centre outside Japan or half a centre, writing nothing', async () => {
    const before = (await call('GET', '/api/tenant_setting/histories', csToken)).json().meta.total_count;
    const bad = await call('PUT', '/api/tenant_setting', csToken, {
      ...input,
      prefecture: 'カリフォルニア',
      latitude: 10,
      longitude: 141,
    });
    expect(bad.statusCode).toBe(422);
    expect(
      bad
        .json()
        .errors.map((e: { field: string }) => e.field)
        .sort(),
    ).toEqual(['latitude', 'prefecture']);
    const half = await call('PUT', '/api/tenant_setting', csToken, { ...input, latitude: 35.68 });
    expect(half.statusCode).toBe(422);
    expect(half.json().errors).toEqual([
      { field: 'latitude', message: '地図の中心は緯度と経度を両方入力してください' },
    ]);
    expect((await call('GET', '/api/tenant_setting/histories', csToken)).json().meta.total_count).toBe(before);
  });
});
