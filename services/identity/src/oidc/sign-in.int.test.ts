import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import { AccessTokenClaims, scopeFor, type Audience } from '@renkei/contracts';
import { sql } from 'kysely';
import { addAccount, addTenant, getJwks, issueAccessToken } from '../index.ts';
import { wrongCredentialsMessage } from '../pages/sign-in.page.ts';
import { createIdentityFixture, type IdentityFixture } from '../testing/identity-fixture.ts';
import { TestBrowser } from '../testing/test-browser.ts';

const origin = 'https://localhost:3000';
const redirectUri = `${origin}/app/auth/redirect`;

let f: IdentityFixture;
let tenantId: string;
let ownerId: string;

beforeAll(async () => {
  f = await createIdentityFixture();
  const added = await addTenant(f, {
    slug: 'sakura',
    name: 'さくら総合病院',
    ownerEmail: 'owner@sakura.example',
    password: 'correct-horse-1',
    ownerName: '佐藤 花子',
    plan: 'basic',
    members: [{ username: '鈴木 一郎', loginName: 'suzuki', password: 'member-pass-1' }],
  });
  tenantId = added.tenantId;
  ownerId = added.ownerId;
});

afterAll(async () => {
  await f?.close();
});

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

const scopes = (audiences: Audience[]) =>
  ['openid', 'profile', 'offline_access', ...audiences.map((a) => scopeFor(f.config.resources[a]))].join(' ');

async function startSignIn(browser: TestBrowser) {
  const { verifier, challenge } = pkce();
  const query = new URLSearchParams({
    client_id: 'renkei-web',
    response_type: 'code',
    redirect_uri: redirectUri,
    // MSAL: the main scope plus extraScopesToConsent for the other two.
    scope: scopes(['main', 'query', 'command']),
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'state-1',
    nonce: 'nonce-1',
  });
  const page = await browser.navigate('GET', `/oidc/auth?${query}`);
  return { page, verifier };
}

async function token(browser: TestBrowser, form: Record<string, string>) {
  const response = await browser.request('POST', '/oidc/token', { form: { client_id: 'renkei-web', ...form } });
  return { status: response.status, body: JSON.parse(response.body) as Record<string, string> };
}

async function verifyFor(accessToken: string, audience: Audience) {
  const jwks = createLocalJWKSet(await getJwks(f));
  const { payload } = await jwtVerify(accessToken, jwks, {
    issuer: `${origin}/oidc`,
    audience: f.config.resources[audience],
  });
  return AccessTokenClaims.parse(payload);
}

describe('the OpenID provider', () => {
  it('publishes a discovery document on the https issuer', async () => {
    const browser = new TestBrowser(f.identity.app);
    const response = await browser.request('GET', '/oidc/.well-known/openid-configuration');
    expect(response.status).toBe(200);
    const doc = JSON.parse(response.body);
    expect(doc.issuer).toBe(`${origin}/oidc`);
    expect(doc.authorization_endpoint).toBe(`${origin}/oidc/auth`);
    expect(doc.token_endpoint).toBe(`${origin}/oidc/token`);
    expect(doc.end_session_endpoint).toBe(`${origin}/oidc/session/end`);
    expect(doc.code_challenge_methods_supported).toContain('S256');
    const jwks = await browser.request('GET', doc.jwks_uri);
    expect(JSON.parse(jwks.body).keys[0].d).toBeUndefined();
  });

  it('answers a CORS preflight of the token endpoint for the public origin only', async () => {
    const preflight = (requestOrigin: string) =>
      f.identity.app.inject({
        method: 'OPTIONS',
        url: '/oidc/token',
        headers: {
          origin: requestOrigin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
    const foreign = await preflight('https://evil.example');
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    const own = await preflight(origin);
    expect(own.headers['access-control-allow-origin']).toBe(origin);
  });

  it('sets every sign-in cookie httpOnly, Secure and SameSite=Lax, scoped to the provider', async () => {
    const browser = new TestBrowser(f.identity.app);
    const { page } = await startSignIn(browser);
    const action = /action="([^"]+)"/.exec(page.body)![1]!;
    const done = await browser.navigate('POST', action, {
      form: { login: 'owner@sakura.example', password: 'correct-horse-1' },
    });
    expect(done.location).toBeDefined();
    const cookies = browser.setCookieLines.map((line) => {
      const [pair, ...attributes] = line.split(';').map((part) => part.trim());
      return {
        name: pair!.slice(0, pair!.indexOf('=')),
        attributes: new Map(
          attributes.map((a) => {
            const [k, ...v] = a.split('=');
            return [k!.toLowerCase(), v.join('=')] as const;
          }),
        ),
      };
    });
    // The interaction and session cookies (and their signatures) at least.
    expect(new Set(cookies.map((c) => c.name.replace(/\.sig$/, ''))).size).toBeGreaterThanOrEqual(2);
    for (const cookie of cookies) {
      expect.soft(cookie.attributes.has('httponly'), `${cookie.name} httpOnly`).toBe(true);
      expect.soft(cookie.attributes.has('secure'), `${cookie.name} Secure`).toBe(true);
      expect.soft(cookie.attributes.get('samesite')?.toLowerCase(), `${cookie.name} SameSite`).toBe('lax');
      expect.soft(cookie.attributes.get('path'), `${cookie.name} path`).toMatch(/^\/oidc/);
      expect.soft(cookie.attributes.has('domain'), `${cookie.name} has no Domain`).toBe(false);
    }
  });

  it('shows a Japanese sign-in page and refuses a wrong password', async () => {
    const browser = new TestBrowser(f.identity.app);
    const { page } = await startSignIn(browser);
    expect(page.status).toBe(200);
    expect(page.body).toContain('ログイン');
    expect(page.body).toContain('連携');
    const action = /action="([^"]+)"/.exec(page.body)![1]!;
    const wrong = await browser.navigate('POST', action, {
      form: { login: 'owner@sakura.example', password: 'wrong-password' },
    });
    expect(wrong.status).toBe(200);
    expect(wrong.body).toContain(wrongCredentialsMessage);
    expect(wrong.location).toBeUndefined();
    const unknown = await browser.navigate('POST', action, { form: { login: 'nobody@example.com', password: 'x' } });
    expect(unknown.body).toContain(wrongCredentialsMessage);
  });

  it('runs authorization code + PKCE to JWT access tokens for all three APIs, with refresh surviving a restart', async () => {
    const browser = new TestBrowser(f.identity.app);
    const { page, verifier } = await startSignIn(browser);
    const action = /action="([^"]+)"/.exec(page.body)![1]!;
    const done = await browser.navigate('POST', action, {
      form: { login: 'OWNER@sakura.example', password: 'correct-horse-1' },
    });
    expect(done.location).toBeDefined();
    const callback = new URL(done.location!);
    expect(callback.origin + callback.pathname).toBe(redirectUri);
    expect(callback.searchParams.get('state')).toBe('state-1');
    const code = callback.searchParams.get('code')!;
    expect(code).toBeTruthy();

    const exchanged = await token(browser, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      scope: scopes(['main']),
    });
    expect(exchanged.status).toBe(200);
    expect(exchanged.body.refresh_token).toBeTruthy();
    const main = await verifyFor(exchanged.body.access_token!, 'main');
    expect(main).toMatchObject({ sub: ownerId, tid: tenantId, role: 'owner', tfp: 'B2C_1_signin' });
    expect(main.features).toContain('data_analysis');
    expect(main.features).not.toContain('emails');

    const idToken = decodeJwt(exchanged.body.id_token!);
    expect(idToken).toMatchObject({ tfp: 'B2C_1_signin', name: '佐藤 花子', email: 'owner@sakura.example' });

    // MSAL asks for the other audiences concurrently with the same refresh token: both must work.
    const concurrent = await Promise.all(
      (['query', 'command'] as const).map((audience) =>
        token(browser, {
          grant_type: 'refresh_token',
          refresh_token: exchanged.body.refresh_token!,
          scope: scopes([audience]),
        }),
      ),
    );
    expect(concurrent.map((r) => r.status)).toEqual([200, 200]);

    let refreshToken = exchanged.body.refresh_token!;
    for (const audience of ['query', 'command'] as const) {
      const refreshed = await token(browser, {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        scope: scopes([audience]),
      });
      expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
      const claims = await verifyFor(refreshed.body.access_token!, audience);
      expect(claims).toMatchObject({ sub: ownerId, tid: tenantId, role: 'owner' });
      expect(decodeJwt(refreshed.body.access_token!).aud).toBe(f.config.resources[audience]);
      refreshToken = refreshed.body.refresh_token ?? refreshToken;
    }

    const current = await f.identity.app.inject({
      method: 'GET',
      url: '/api/current_user',
      headers: { authorization: `Bearer ${exchanged.body.access_token}` },
    });
    expect(current.statusCode).toBe(200);
    expect(current.json()).toMatchObject({ id: ownerId, tenant: { id: tenantId, name: 'さくら総合病院' } });
    expect(Date.parse(current.json().last_login_date)).toBeGreaterThan(Date.now() - 60_000);

    // Restart: a new app on the same database still honours the refresh token and the session.
    await f.restart();
    const afterRestart = new TestBrowser(f.identity.app);
    const refreshed = await token(afterRestart, {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      scope: scopes(['main']),
    });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect((await verifyFor(refreshed.body.access_token!, 'main')).sub).toBe(ownerId);

    browser.app = f.identity.app;
    const silent = await startSignIn(browser);
    expect(silent.page.location?.startsWith(redirectUri)).toBe(true);
  });

  it('signs in with a login name and logs out with id_token_hint back to the app', async () => {
    const browser = new TestBrowser(f.identity.app);
    const { page, verifier } = await startSignIn(browser);
    const action = /action="([^"]+)"/.exec(page.body)![1]!;
    const done = await browser.navigate('POST', action, { form: { login: 'suzuki', password: 'member-pass-1' } });
    const code = new URL(done.location!).searchParams.get('code')!;
    const exchanged = await token(browser, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    });
    expect(exchanged.status).toBe(200);
    expect((await verifyFor(exchanged.body.access_token!, 'main')).role).toBe('member');

    const logout = await browser.request(
      'GET',
      `/oidc/session/end?${new URLSearchParams({
        id_token_hint: exchanged.body.id_token!,
        post_logout_redirect_uri: `${origin}/app/`,
        client_id: 'renkei-web',
      })}`,
    );
    expect(logout.status).toBe(200);
    expect(logout.body).toContain('ログアウト中です');
    const formAction = /action="([^"]+)"/.exec(logout.body)![1]!;
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(logout.body)![1]!;
    const confirmed = await browser.navigate('POST', formAction, { form: { xsrf, logout: 'yes' } });
    expect(confirmed.location).toBe(`${origin}/app/`);
    // Signed out: the next authorization asks for credentials again.
    const again = await startSignIn(browser);
    expect(again.page.body).toContain('name="password"');
  });

  it('logs a deleted account out at once, back to the app and then to the sign-in (issue 15)', async () => {
    const { accountId } = await addAccount(f, {
      tenantId,
      username: '削除 予定',
      loginName: 'to-be-deleted',
      password: 'deleted-pass-1',
      role: 'member',
    });
    const browser = new TestBrowser(f.identity.app);
    const { page, verifier } = await startSignIn(browser);
    const action = /action="([^"]+)"/.exec(page.body)![1]!;
    const done = await browser.navigate('POST', action, {
      form: { login: 'to-be-deleted', password: 'deleted-pass-1' },
    });
    const code = new URL(done.location!).searchParams.get('code')!;
    const exchanged = await token(browser, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    });
    expect(exchanged.status).toBe(200);
    // What DELETE /accounts/{id} does to the account and its sessions.
    await sql`UPDATE identity.accounts SET active = false WHERE id = ${accountId}`.execute(f.db.kysely);
    await sql`DELETE FROM identity.oidc_payloads WHERE payload->>'accountId' = ${accountId}`.execute(f.db.kysely);

    // The session is gone, so the provider skips its confirmation page and renders an auto-submitted
    // form: its inline script must be allowed by the page's policy, else the browser stays there.
    const logout = await browser.request(
      'GET',
      `/oidc/session/end?${new URLSearchParams({
        id_token_hint: exchanged.body.id_token!,
        post_logout_redirect_uri: `${origin}/app/`,
        client_id: 'renkei-web',
      })}`,
    );
    expect(logout.status).toBe(200);
    const script = /<script>([\s\S]*?)<\/script>/.exec(logout.body)![1]!;
    const policy = String(logout.headers['content-security-policy']);
    const scriptSrc = policy.split(';').find((d) => d.trim().startsWith('script-src'));
    expect(scriptSrc).toContain(`'sha256-${createHash('sha256').update(script).digest('base64')}'`);
    const formAction = /action="([^"]+)"/.exec(logout.body)![1]!;
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(logout.body)![1]!;
    const confirmed = await browser.navigate('POST', formAction, { form: { xsrf, logout: 'yes' } });
    expect(confirmed.location).toBe(`${origin}/app/`);
    const again = await startSignIn(browser);
    expect(again.page.body).toContain('name="password"');
  });

  it('mints equivalent tokens for the ops CLI, and refuses with an external provider', async () => {
    const accessToken = await issueAccessToken(f, {
      tenantSlug: 'sakura',
      email: 'owner@sakura.example',
      audience: 'query',
    });
    expect(await verifyFor(accessToken, 'query')).toMatchObject({ sub: ownerId, tid: tenantId });
    await expect(
      issueAccessToken(
        { db: f.db, config: { ...f.config, externalAuthority: 'https://example.b2clogin.com/x' } },
        { tenantSlug: 'sakura', email: 'owner@sakura.example', audience: 'main' },
      ),
    ).rejects.toThrow(/external provider/);
  });
});
