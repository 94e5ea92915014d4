import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { sql } from 'kysely';
import { scopeFor } from '@renkei/contracts';
import { addTenant, issueAccessToken, listMails } from '../index.ts';
import { identityDb } from '../db/identity.tables.ts';
import { createIdentityFixture, type IdentityFixture } from '../testing/identity-fixture.ts';
import { TestBrowser } from '../testing/test-browser.ts';
import { signInTicketCookie } from './sign-in-ticket.ts';

const origin = 'https://localhost:3000';
const redirectUri = `${origin}/app/auth/redirect`;
// What a browser sends with a form of the page itself.
const ownPage = { 'sec-fetch-site': 'same-origin', origin: 'null' };

let f: IdentityFixture;
let ownerToken: string;

beforeAll(async () => {
  f = await createIdentityFixture();
  await addTenant(f, {
    slug: 'sakura',
    name: 'さくら総合病院',
    ownerEmail: 'owner@sakura.example',
    password: 'owner-pass-1',
  });
  ownerToken = await issueAccessToken(f, { tenantSlug: 'sakura', email: 'owner@sakura.example', audience: 'main' });
});

afterAll(async () => {
  await f?.close();
});

const owner = (method: 'POST' | 'DELETE', url: string, payload?: object) =>
  f.identity.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${ownerToken}` },
    ...(payload ? { payload } : {}),
  });

/** Invites `email` and answers the new account's id and the sign-up token of its mail. */
async function invite(email: string, username: string) {
  const created = await owner('POST', '/api/accounts', { username, email });
  expect(created.statusCode).toBe(201);
  const mail = (await listMails(f.config.dataDir)).filter((m) => m.to === email).at(-1)!;
  const token = /\/app\/accounts\/confirmation\?token=([\w%-]+)/.exec(mail.text)![1]!;
  return { accountId: created.json().id as string, token: decodeURIComponent(token) };
}

async function signUp(browser: TestBrowser, token: string, headers: Record<string, string> = ownPage) {
  await browser.request('GET', `/oidc/accounts/confirmation?token=${encodeURIComponent(token)}`);
  return browser.request('POST', '/oidc/accounts/confirmation', {
    form: { token, password: 'invited-pass-1', password_confirmation: 'invited-pass-1' },
    headers,
  });
}

/** The SPA's sign-in (MSAL's authorization request), followed through the provider. */
async function startSignIn(browser: TestBrowser) {
  const verifier = randomBytes(32).toString('base64url');
  const query = new URLSearchParams({
    client_id: 'renkei-web',
    response_type: 'code',
    redirect_uri: redirectUri,
    scope: ['openid', 'profile', 'offline_access', scopeFor(f.config.resources.main)].join(' '),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'state-1',
  });
  const page = await browser.navigate('GET', `/oidc/auth?${query}`);
  return { page, verifier };
}

async function tokensFor(browser: TestBrowser, location: string, verifier: string) {
  const code = new URL(location).searchParams.get('code')!;
  const response = await browser.request('POST', '/oidc/token', {
    form: {
      client_id: 'renkei-web',
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    },
  });
  expect(response.status, response.body).toBe(200);
  return JSON.parse(response.body) as { access_token: string; id_token: string; refresh_token?: string };
}

const ticketRows = (accountId: string) =>
  identityDb(f.db).selectFrom('identity.sign_in_tickets').selectAll().where('account_id', '=', accountId).execute();

const isSignInPage = (page: { status: number; body: string; location?: string }) =>
  page.status === 200 && page.location === undefined && /name="password"/.test(page.body);

describe('signing up signs in', () => {
  it('sets a two-minute ticket cookie on /oidc and sends the browser to the app, whose sign-in needs no password', async () => {
    const { accountId, token } = await invite('ichiro@sakura.example', '招待 一郎');
    const browser = new TestBrowser(f.identity.app);
    const done = await signUp(browser, token);
    expect(done.status).toBe(303);
    expect(done.headers.location).toBe(`${origin}/app/`);
    const line = browser.setCookieLines.find((l) => l.startsWith(`${signInTicketCookie}=`))!;
    const attributes = line.split(';').map((a) => a.trim().toLowerCase());
    expect(attributes).toEqual(
      expect.arrayContaining(['max-age=120', 'path=/oidc', 'httponly', 'secure', 'samesite=lax']),
    );
    const ticket = browser.cookie(signInTicketCookie)!;
    expect(ticket).toMatch(/^[\w-]{43}$/);
    // Only the hash is kept.
    const [row] = await ticketRows(accountId);
    expect(row!.token_hash).toBe(createHash('sha256').update(ticket).digest('hex'));
    expect(row!.used_at).toBeNull();
    expect(row!.expires_at.getTime() - row!.created_at.getTime()).toBeCloseTo(120_000, -3);

    const { page, verifier } = await startSignIn(browser);
    expect(page.location, page.body).toMatch(/^https:\/\/localhost:3000\/app\/auth\/redirect\?code=/);
    expect(new URL(page.location!).searchParams.get('state')).toBe('state-1');
    const tokens = await tokensFor(browser, page.location!, verifier);
    expect(decodeJwt(tokens.access_token).sub).toBe(accountId);
    expect(decodeJwt(tokens.id_token)).toMatchObject({ sub: accountId, name: '招待 一郎' });
    expect(tokens.refresh_token).toBeTruthy();

    expect(browser.cookie(signInTicketCookie)).toBeUndefined();
    expect((await ticketRows(accountId))[0]!.used_at).not.toBeNull();
    const account = await identityDb(f.db)
      .selectFrom('identity.accounts')
      .select(['last_login_date', 'is_confirmed'])
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    expect(account.is_confirmed).toBe(true);
    expect(account.last_login_date!.getTime()).toBeGreaterThan(Date.now() - 60_000);

    // The session is the provider's own from now on: the next sign-in is silent, as after a password.
    const again = await startSignIn(browser);
    expect(again.page.location).toMatch(/\/app\/auth\/redirect\?code=/);
  });

  it('works once: the same ticket replayed shows the sign-in page', async () => {
    const { token } = await invite('jiro@sakura.example', '招待 二郎');
    const first = new TestBrowser(f.identity.app);
    await signUp(first, token);
    const ticket = first.cookie(signInTicketCookie)!;
    expect((await startSignIn(first)).page.location).toMatch(/\/app\/auth\/redirect\?code=/);

    const replay = new TestBrowser(f.identity.app);
    replay.setCookie(signInTicketCookie, ticket);
    const { page } = await startSignIn(replay);
    expect(isSignInPage(page), page.body).toBe(true);
    expect(replay.cookie(signInTicketCookie)).toBeUndefined();
  });

  it('an expired ticket, or one of a deactivated account, shows the sign-in page and is cleared', async () => {
    const expired = await invite('saburo@sakura.example', '招待 三郎');
    const late = new TestBrowser(f.identity.app);
    await signUp(late, expired.token);
    await identityDb(f.db)
      .updateTable('identity.sign_in_tickets')
      .set({ expires_at: sql<Date>`now() - interval '1 second'` })
      .where('account_id', '=', expired.accountId)
      .execute();
    const latePage = (await startSignIn(late)).page;
    expect(isSignInPage(latePage), latePage.body).toBe(true);
    expect(late.cookie(signInTicketCookie)).toBeUndefined();

    const deleted = await invite('shiro@sakura.example', '招待 四郎');
    const browser = new TestBrowser(f.identity.app);
    await signUp(browser, deleted.token);
    expect((await owner('DELETE', `/api/accounts/${deleted.accountId}`)).statusCode).toBe(204);
    const { page } = await startSignIn(browser);
    expect(isSignInPage(page), page.body).toBe(true);
    expect(browser.cookie(signInTicketCookie)).toBeUndefined();

    // Garbage in the cookie is no ticket, and no error either.
    const odd = new TestBrowser(f.identity.app);
    odd.setCookie(signInTicketCookie, '%%%');
    const oddPage = (await startSignIn(odd)).page;
    expect(isSignInPage(oddPage), oddPage.body).toBe(true);
  });

  it('a sign-up form posted from another site sets the password but signs nobody in', async () => {
    const crossSite = await invite('goro@sakura.example', '招待 五郎');
    const victim = new TestBrowser(f.identity.app);
    const answer = await signUp(victim, crossSite.token, {
      'sec-fetch-site': 'cross-site',
      origin: 'https://evil.example',
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('登録が完了しました');
    expect(victim.cookie(signInTicketCookie)).toBeUndefined();
    expect(await ticketRows(crossSite.accountId)).toHaveLength(0);

    // A browser without Sec-Fetch-Site: its Origin decides.
    const older = await invite('rokuro@sakura.example', '招待 六郎');
    const browser = new TestBrowser(f.identity.app);
    expect((await signUp(browser, older.token, { origin })).status).toBe(303);
    expect(browser.cookie(signInTicketCookie)).toBeDefined();
    const unknown = await invite('shichiro@sakura.example', '招待 七郎');
    expect((await signUp(new TestBrowser(f.identity.app), unknown.token, {})).status).toBe(200);
  });

  it('is taken by a login prompt only: a browser signed in as someone else keeps that session, the ticket unused', async () => {
    const browser = new TestBrowser(f.identity.app);
    const { page } = await startSignIn(browser);
    const action = /action="([^"]+)"/.exec(page.body)![1]!;
    const signedIn = await browser.navigate('POST', action, {
      form: { login: 'owner@sakura.example', password: 'owner-pass-1' },
    });
    expect(signedIn.location).toMatch(/\/app\/auth\/redirect\?code=/);

    const { accountId, token } = await invite('hachiro@sakura.example', '招待 八郎');
    expect((await signUp(browser, token)).status).toBe(303);
    const next = await startSignIn(browser);
    const tokens = await tokensFor(browser, next.page.location!, next.verifier);
    expect(decodeJwt(tokens.access_token).sub).not.toBe(accountId);
    expect((await ticketRows(accountId))[0]!.used_at).toBeNull();
  });
});
