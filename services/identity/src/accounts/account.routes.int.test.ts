import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { streamId } from '@renkei/event-store';
import { addTenant, issueAccessToken } from '../index.ts';
import { createIdentityFixture, type IdentityFixture } from '../testing/identity-fixture.ts';

let f: IdentityFixture;
let sakura: { tenantId: string; ownerId: string; memberIds: string[] };
let kaede: { tenantId: string; ownerId: string; memberIds: string[] };
let ownerToken: string;
let memberToken: string;

beforeAll(async () => {
  f = await createIdentityFixture();
  sakura = await addTenant(f, {
    slug: 'sakura',
    name: 'さくら総合病院',
    ownerEmail: 'owner@sakura.example',
    password: 'owner-pass-1',
    maxAccountCount: 4,
    members: [
      { username: '鈴木 一郎', email: 'suzuki@sakura.example', password: 'member-pass-1' },
      { username: 'CS 担当', loginName: 'cs-support', password: 'member-pass-2', csAccount: true },
    ],
  });
  kaede = await addTenant(f, {
    slug: 'kaede',
    name: 'かえで記念病院',
    ownerEmail: 'owner@kaede.example',
    password: 'owner-pass-2',
    members: [{ username: '高橋 次郎', email: 'takahashi@kaede.example', password: 'member-pass-3' }],
  });
  ownerToken = await issueAccessToken(f, { tenantSlug: 'sakura', email: 'owner@sakura.example', audience: 'main' });
  memberToken = await issueAccessToken(f, { tenantSlug: 'sakura', email: 'suzuki@sakura.example', audience: 'main' });
});

afterAll(async () => {
  await f?.close();
});

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, token: string, payload?: object) =>
  f.identity.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${token}` },
    ...(payload ? { payload } : {}),
  });

describe('/api/accounts', () => {
  it('lists the tenant accounts without CS accounts, paged', async () => {
    const response = await call('GET', '/api/accounts?page=1&per_page=1', memberToken);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.meta).toEqual({ total_count: 2, page: 1, per_page: 1, total_pages: 2 });
    expect(body.data).toHaveLength(1);
    const all = (await call('GET', '/api/accounts', memberToken)).json().data as { id: string }[];
    expect(all.map((a) => a.id).sort()).toEqual([sakura.ownerId, sakura.memberIds[0]!].sort());
  });

  it('lets only owners create, enforcing uniqueness and max_account_count', async () => {
    const input = { username: '田中 三郎', email: 'tanaka@sakura.example', password: 'tanaka-pass-1' };
    expect((await call('POST', '/api/accounts', memberToken, input)).statusCode).toBe(403);
    const duplicate = await call('POST', '/api/accounts', ownerToken, {
      ...input,
      email: 'takahashi@kaede.example',
    });
    expect(duplicate.statusCode).toBe(409);
    // The field taken is named, so the form shows it under that input and keeps what was typed.
    expect(duplicate.json().errors).toEqual([
      { field: 'email', message: 'このメールアドレスは既に使用されています。' },
    ]);
    const duplicateLogin = await call('POST', '/api/accounts', ownerToken, {
      username: '重複 ID',
      login_name: 'CS-Support',
      password: 'dup-login-1',
    });
    expect(duplicateLogin.statusCode).toBe(409);
    expect(duplicateLogin.json().errors).toEqual([
      { field: 'login_name', message: 'このログインIDは既に使用されています。' },
    ]);
    const created = await call('POST', '/api/accounts', ownerToken, input);
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ username: '田中 三郎', email: 'tanaka@sakura.example', role: 'member' });
    const events = await f.store.readStream(streamId('account', created.json().id), { tenantId: sakura.tenantId });
    expect(events.map((e) => e.type)).toEqual(['AccountRegistered']);

    const invalid = await call('POST', '/api/accounts', ownerToken, { username: '', password: 'short' });
    expect(invalid.statusCode).toBe(422);
    expect(invalid.json().errors.map((e: { field: string }) => e.field)).toEqual(
      expect.arrayContaining(['username', 'password']),
    );

    // Owner, member, CS and Tanaka: the limit of 4 is reached.
    const overLimit = await call('POST', '/api/accounts', ownerToken, {
      username: '伊藤 四郎',
      login_name: 'ito',
      password: 'ito-pass-1',
    });
    expect(overLimit.statusCode).toBe(422);
    expect(overLimit.json().errors[0].message).toContain('上限');
  });

  it('refuses a NUL in any string, an overlong password and a malformed escape with 422/404 bodies', async () => {
    const nul = await call('POST', '/api/accounts', ownerToken, {
      username: '山田\u0000太郎',
      login_name: 'yamada',
      password: 'yamada-pass-1',
    });
    expect(nul.statusCode).toBe(422);
    expect(nul.json().errors).toEqual([{ field: 'username', message: '使用できない文字が含まれています。' }]);
    const long = await call('POST', '/api/accounts', ownerToken, {
      username: '山田 太郎',
      login_name: 'yamada',
      password: 'x'.repeat(500_000),
    });
    expect(long.statusCode).toBe(422);
    expect(long.json().errors).toEqual([{ field: 'password', message: 'パスワードは128文字以内で入力してください' }]);
    const escape = await call('GET', '/api/accounts?page=%ZZ', memberToken);
    expect(escape.statusCode).toBe(422);
    expect(escape.json()).toMatchObject({ status: 422, errors: [{ field: 'page' }] });
    expect(escape.headers['cache-control']).toBe('no-store');
  });

  it('updates and deactivates within the tenant only; another tenant id is 404', async () => {
    const kaedeMember = kaede.memberIds[0]!;
    const body = { username: 'x', email: 'x@kaede.example', role: 'member' };
    expect((await call('PUT', `/api/accounts/${kaedeMember}`, ownerToken, body)).statusCode).toBe(404);
    expect((await call('DELETE', `/api/accounts/${kaedeMember}`, ownerToken)).statusCode).toBe(404);

    const updated = await call('PUT', `/api/accounts/${sakura.memberIds[0]}`, ownerToken, {
      username: '鈴木 一郎',
      email: 'suzuki@sakura.example',
      login_name: 'suzuki',
      role: 'owner',
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({ login_name: 'suzuki', role: 'owner' });
    const takenOnEdit = await call('PUT', `/api/accounts/${sakura.memberIds[0]}`, ownerToken, {
      username: '鈴木 一郎',
      email: 'OWNER@sakura.example',
      role: 'owner',
    });
    expect(takenOnEdit.statusCode).toBe(409);
    expect(takenOnEdit.json().errors).toEqual([
      { field: 'email', message: 'このメールアドレスは既に使用されています。' },
    ]);

    const demoteSecond = await call('PUT', `/api/accounts/${sakura.memberIds[0]}`, ownerToken, {
      username: '鈴木 一郎',
      email: 'suzuki@sakura.example',
      role: 'member',
    });
    expect(demoteSecond.statusCode).toBe(200);
    const demoteLastOwner = await call('PUT', `/api/accounts/${sakura.ownerId}`, ownerToken, {
      username: 'owner',
      email: 'owner@sakura.example',
      role: 'member',
    });
    expect(demoteLastOwner.statusCode).toBe(422);
    expect(demoteLastOwner.json().errors[0].field).toBe('role');
    expect((await call('DELETE', `/api/accounts/${sakura.ownerId}`, ownerToken)).statusCode).toBe(422);

    expect((await call('DELETE', `/api/accounts/${sakura.memberIds[0]}`, ownerToken)).statusCode).toBe(204);
    const list = (await call('GET', '/api/accounts', ownerToken)).json().data as { id: string }[];
    expect(list.map((a) => a.id)).not.toContain(sakura.memberIds[0]);
    // The deactivated account's tokens no longer reach its own data (404 until the account
    // follower has seen the event, 401 from then on).
    expect([401, 404]).toContain((await call('GET', '/api/current_user', memberToken)).statusCode);
    const events = await f.store.readStream(streamId('account', sakura.memberIds[0]!), { tenantId: sakura.tenantId });
    expect(events.at(-1)).toMatchObject({ type: 'AccountUpdated', data: { active: false } });
  });
});

describe('a deleted account', () => {
  it('is refused (401) on every endpoint within seconds, though its token has not expired', async () => {
    const created = await call('POST', '/api/accounts', await kaedeOwnerToken(), {
      username: '山本 五郎',
      email: 'yamamoto@kaede.example',
      password: 'yamamoto-pass-1',
    });
    expect(created.statusCode).toBe(201);
    const token = await issueAccessToken(f, {
      tenantSlug: 'kaede',
      email: 'yamamoto@kaede.example',
      audience: 'main',
    });
    expect((await call('GET', '/api/accounts', token)).statusCode).toBe(200);

    const deletedAt = Date.now();
    expect((await call('DELETE', `/api/accounts/${created.json().id}`, await kaedeOwnerToken())).statusCode).toBe(204);
    await vi.waitFor(async () => expect((await call('GET', '/api/accounts', token)).statusCode).toBe(401), {
      timeout: 5_000,
      interval: 100,
    });
    expect(Date.now() - deletedAt).toBeLessThan(3_000);
    expect((await call('GET', '/api/current_user', token)).statusCode).toBe(401);
    // The tenant's other accounts keep working.
    expect((await call('GET', '/api/accounts', await kaedeOwnerToken())).statusCode).toBe(200);
  });
});

const kaedeOwnerToken = () =>
  issueAccessToken(f, { tenantSlug: 'kaede', email: 'owner@kaede.example', audience: 'main' });
