import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addTenant, issueAccessToken, listMails } from '../index.ts';
import { createIdentityFixture, type IdentityFixture } from '../testing/identity-fixture.ts';
import { TestBrowser } from '../testing/test-browser.ts';
import { identityDb } from '../db/identity.tables.ts';

let f: IdentityFixture;
let ownerToken: string;

beforeAll(async () => {
  f = await createIdentityFixture();
  await addTenant(f, {
    slug: 'sakura',
    name: 'さくら総合病院',
    ownerEmail: 'owner@sakura.example',
    password: 'owner-pass-1',
    maxAccountCount: 12,
  });
  ownerToken = await issueAccessToken(f, { tenantSlug: 'sakura', email: 'owner@sakura.example', audience: 'main' });
});

afterAll(async () => {
  await f?.close();
});

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, token = ownerToken) =>
  f.identity.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${token}` },
    ...(payload ? { payload } : {}),
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

// The mail links the web's /accounts/confirmation, which forwards the token to the provider's page.
const linkIn = (text: string) => {
  const token = /https:\/\/localhost:3000\/app\/accounts\/confirmation\?token=([\w%-]+)/.exec(text)?.[1];
  return token ? `/oidc/accounts/confirmation?token=${token}` : null;
};

async function mailsTo(address: string) {
  return (await listMails(f.config.dataDir)).filter((m) => m.to === address);
}

describe('inviting an account', () => {
  it('creates it unconfirmed without a password and mails a one-time sign-up link', async () => {
    const created = await call('POST', '/api/accounts', { username: '招待 一郎', email: 'ichiro@sakura.example' });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ email: 'ichiro@sakura.example', role: 'member', is_confirmed: false });

    const [mail] = await mailsTo('ichiro@sakura.example');
    expect(mail).toMatchObject({ subject: '【連携】アカウント登録のご案内' });
    expect(mail!.text).toContain('さくら総合病院');
    expect(mail!.text).toContain('7日間');
    const link = linkIn(mail!.text)!;
    const token = new URL(link, 'https://localhost:3000').searchParams.get('token')!;

    const browser = new TestBrowser(f.identity.app);
    const form = await browser.request('GET', link);
    expect(form.status).toBe(200);
    expect(form.body).toContain('パスワードは8文字以上、128文字以内で入力してください。');
    const short = await browser.request('POST', '/oidc/accounts/confirmation', {
      form: { token, password: 'short', password_confirmation: 'short' },
    });
    expect(short.status).toBe(422);
    expect(short.body).toContain('パスワードは8文字以上で入力してください。');

    // Posted without Sec-Fetch-Site or Origin, as a browser of another site might: the password is
    // set, the person signs in by hand (a form of the page itself signs in: sign-in-ticket.int.test.ts).
    const done = await browser.request('POST', '/oidc/accounts/confirmation', {
      form: { token, password: 'ichiro-pass-1', password_confirmation: 'ichiro-pass-1' },
    });
    expect(done.status).toBe(200);
    expect(done.body).toContain('登録が完了しました');
    expect((await signIn('ichiro@sakura.example', 'ichiro-pass-1')).location).toMatch(/\/app\/auth\/redirect\?code=/);

    const list = (await call('GET', '/api/accounts')).json().data as { email: string; is_confirmed: boolean }[];
    expect(list.find((a) => a.email === 'ichiro@sakura.example')?.is_confirmed).toBe(true);

    // Used once: the same link now shows the way forward, and sets nothing.
    const again = await browser.request('GET', link);
    expect(again.status).toBe(400);
    expect(again.body).toContain('使用済みか有効期限（送信から7日間）が切れています');
    expect(again.body).toContain('招待メールの再送を依頼してください');
    const reuse = await browser.request('POST', '/oidc/accounts/confirmation', {
      form: { token, password: 'other-pass-1', password_confirmation: 'other-pass-1' },
    });
    expect(reuse.status).toBe(400);
    expect((await signIn('ichiro@sakura.example', 'ichiro-pass-1')).location).toMatch(/\/app\/auth\/redirect\?code=/);

    // A confirmed account gets no new invitation.
    const resend = await call('POST', `/api/accounts/${created.json().id}/invitation`);
    expect(resend.statusCode).toBe(422);
  });

  it('refuses an expired link, and a resend replaces the earlier link', async () => {
    const created = await call('POST', '/api/accounts', { username: '招待 二郎', email: 'jiro@sakura.example' });
    const first = linkIn((await mailsTo('jiro@sakura.example'))[0]!.text)!;
    const resent = await call('POST', `/api/accounts/${created.json().id}/invitation`);
    expect(resent.statusCode).toBe(200);
    const mails = await mailsTo('jiro@sakura.example');
    expect(mails).toHaveLength(2);
    const second = mails.map((m) => linkIn(m.text)!).find((l) => l !== first)!;
    const browser = new TestBrowser(f.identity.app);
    expect((await browser.request('GET', first)).status).toBe(400);
    expect((await browser.request('GET', second)).status).toBe(200);

    await identityDb(f.db)
      .updateTable('identity.password_resets')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('purpose', '=', 'invitation')
      .execute();
    const expired = await browser.request('GET', second);
    expect(expired.status).toBe(400);
    expect(expired.body).toContain('有効期限（送信から7日間）');
  });

  it('needs an email or a password, and a password link is not a reset link', async () => {
    const noMailbox = await call('POST', '/api/accounts', { username: '招待 三郎', login_name: 'saburo' });
    expect(noMailbox.statusCode).toBe(422);
    expect(noMailbox.json().errors).toEqual([
      {
        field: 'password',
        message: 'メールアドレスのないアカウントは招待メールを送れないため、パスワードを入力してください',
      },
    ]);
    await call('POST', '/api/accounts', { username: '招待 四郎', email: 'shiro@sakura.example' });
    const token = new URL(
      linkIn((await mailsTo('shiro@sakura.example'))[0]!.text)!,
      'https://localhost:3000',
    ).searchParams.get('token')!;
    const browser = new TestBrowser(f.identity.app);
    expect((await browser.request('GET', `/oidc/password/reset?token=${token}`)).status).toBe(400);
  });

  it('never exceeds max_account_count under 20 concurrent invitations', async () => {
    const before = (await call('GET', '/api/accounts')).json().meta.total_count as number;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call('POST', '/api/accounts', { username: `同時 ${i}`, email: `concurrent-${i}@sakura.example` }),
      ),
    );
    const created = answers.filter((a) => a.statusCode === 201).length;
    expect(created).toBe(12 - before);
    const refused = answers.filter((a) => a.statusCode === 422);
    expect(refused).toHaveLength(20 - created);
    expect(refused[0]!.json().errors[0].message).toBe('アカウント数の上限（12件）に達しています');
    expect((await call('GET', '/api/accounts')).json().meta.total_count).toBe(12);
  });
});

describe('the last owner', () => {
  it('stays when two owners demote each other at the same moment', async () => {
    // The test above filled the account limit.
    await identityDb(f.db).updateTable('identity.tenants').set({ max_account_count: null }).execute();
    const second = await call('POST', '/api/accounts', {
      username: '副 オーナー',
      login_name: 'vice-owner',
      password: 'vice-pass-1',
      role: 'owner',
    });
    expect(second.statusCode).toBe(201);
    const secondToken = await issueAccessToken(f, { tenantSlug: 'sakura', email: 'vice-owner', audience: 'main' });
    const owners = (await call('GET', '/api/accounts?per_page=100'))
      .json()
      .data.filter((a: { role: string }) => a.role === 'owner') as {
      id: string;
      username: string;
      email: string | null;
      login_name: string | null;
    }[];
    expect(owners).toHaveLength(2);
    const demote = (who: (typeof owners)[number], token: string) =>
      call(
        'PUT',
        `/api/accounts/${who.id}`,
        { username: who.username, email: who.email, login_name: who.login_name, role: 'member' },
        token,
      );
    const [first, other] = owners;
    const answers = await Promise.all([demote(first!, secondToken), demote(other!, ownerToken)]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 422]);
    const left = (
      await call(
        'GET',
        '/api/accounts?per_page=100',
        undefined,
        answers[0]!.statusCode === 200 ? secondToken : ownerToken,
      )
    )
      .json()
      .data.filter((a: { role: string }) => a.role === 'owner');
    expect(left).toHaveLength(1);
  });
});
