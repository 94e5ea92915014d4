import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamId } from '@renkei/event-store';
import { addTenant, listMails } from '../index.ts';
import { wrongCredentialsMessage } from '../pages/sign-in.page.ts';
import { createIdentityFixture, type IdentityFixture } from '../testing/identity-fixture.ts';
import { TestBrowser } from '../testing/test-browser.ts';
import { identityDb } from '../db/identity.tables.ts';

let f: IdentityFixture;

beforeAll(async () => {
  f = await createIdentityFixture();
  await addTenant(f, {
    slug: 'sakura',
    name: 'さくら総合病院',
    ownerEmail: 'owner@sakura.example',
    ownerName: '佐藤 花子',
    password: 'old-password-1',
  });
  // As if created by an owner and never signed in: the reset proves the mailbox.
  await identityDb(f.db).updateTable('identity.accounts').set({ is_confirmed: false }).execute();
});

afterAll(async () => {
  await f?.close();
});

async function signIn(login: string, password: string) {
  const browser = new TestBrowser(f.identity.app);
  const query = new URLSearchParams({
    client_id: 'renkei-web',
    response_type: 'code',
    redirect_uri: 'https://localhost:3000/app/auth/redirect',
    scope: 'openid profile',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  });
  const page = await browser.navigate('GET', `/oidc/auth?${query}`);
  const action = /action="([^"]+)"/.exec(page.body)![1]!;
  return browser.navigate('POST', action, { form: { login, password } });
}

describe('password reset', () => {
  it('says the same for an unknown address and sends nothing', async () => {
    const browser = new TestBrowser(f.identity.app);
    const form = await browser.request('GET', '/oidc/password/forgot');
    expect(form.status).toBe(200);
    expect(form.body).toContain('パスワードの再設定');
    const sent = await browser.request('POST', '/oidc/password/forgot', { form: { email: 'nobody@example.com' } });
    expect(sent.status).toBe(200);
    expect(sent.body).toContain('メールを送信しました');
    expect(await listMails(f.config.dataDir)).toHaveLength(0);
  });

  it('mails a one-time link that sets a new password of at least 8 characters', async () => {
    const browser = new TestBrowser(f.identity.app);
    const sent = await browser.request('POST', '/oidc/password/forgot', { form: { email: 'Owner@Sakura.example' } });
    expect(sent.body).toContain('メールを送信しました');
    const mails = await listMails(f.config.dataDir);
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ to: 'owner@sakura.example', subject: '【連携】パスワード再設定のご案内' });
    const link = /https:\/\/localhost:3000\/oidc\/password\/reset\?token=[\w%-]+/.exec(mails[0]!.text)![0];
    const token = new URL(link).searchParams.get('token')!;
    const stored = await identityDb(f.db).selectFrom('identity.password_resets').select('token_hash').execute();
    expect(stored.map((r) => r.token_hash)).not.toContain(token);

    const form = await browser.request('GET', link);
    expect(form.status).toBe(200);
    expect(form.body).toContain('新しいパスワードの設定');

    const tooShort = await browser.request('POST', '/oidc/password/reset', {
      form: { token, password: 'short', password_confirmation: 'short' },
    });
    expect(tooShort.status).toBe(422);
    expect(tooShort.body).toContain('パスワードは8文字以上で入力してください。');
    const mismatch = await browser.request('POST', '/oidc/password/reset', {
      form: { token, password: 'new-password-1', password_confirmation: 'new-password-2' },
    });
    expect(mismatch.body).toContain('パスワード（確認）が一致しません。');

    const done = await browser.request('POST', '/oidc/password/reset', {
      form: { token, password: 'new-password-1', password_confirmation: 'new-password-1' },
    });
    expect(done.status).toBe(200);
    expect(done.body).toContain('パスワードを設定しました');
    const owner = await identityDb(f.db)
      .selectFrom('identity.accounts')
      .select(['id', 'tenant_id', 'is_confirmed'])
      .where('email', '=', 'owner@sakura.example')
      .executeTakeFirstOrThrow();
    expect(owner.is_confirmed).toBe(true);
    const events = await f.store.readStream(streamId('account', owner.id), { tenantId: owner.tenant_id });
    expect(events.at(-1)).toMatchObject({ type: 'AccountUpdated', data: { is_confirmed: true } });

    const reused = await browser.request('POST', '/oidc/password/reset', {
      form: { token, password: 'newer-password-1', password_confirmation: 'newer-password-1' },
    });
    expect(reused.status).toBe(400);
    expect(reused.body).toContain('リンクが無効');

    expect((await signIn('owner@sakura.example', 'old-password-1')).body).toContain(wrongCredentialsMessage);
    expect((await signIn('owner@sakura.example', 'new-password-1')).location).toMatch(/\/app\/auth\/redirect\?code=/);
  });

  it('refuses an expired or unknown link', async () => {
    const browser = new TestBrowser(f.identity.app);
    await browser.request('POST', '/oidc/password/forgot', { form: { email: 'owner@sakura.example' } });
    const mails = await listMails(f.config.dataDir);
    const token = new URL(/https:\/\/\S+/.exec(mails.at(-1)!.text)![0]).searchParams.get('token')!;
    await identityDb(f.db)
      .updateTable('identity.password_resets')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('used_at', 'is', null)
      .execute();
    expect((await browser.request('GET', `/oidc/password/reset?token=${token}`)).status).toBe(400);
    expect((await browser.request('GET', '/oidc/password/reset?token=nonsense')).body).toContain('有効期限');
  });
});
