import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { scopeFor } from '@renkei/contracts';
import { addTenant, getJwks, issueAccessToken } from '../index.ts';
import { createIdentityFixture, type IdentityFixture } from '../testing/identity-fixture.ts';
import { TestBrowser } from '../testing/test-browser.ts';
import { loadSigningKeys, retentionSeconds, rotateSigningKey } from './signing-keys.ts';
import { identityDb } from '../db/identity.tables.ts';

// Rotation is driven by time; the app's clock is moved instead of waiting days.
let offsetMs = 0;
const clock = () => new Date(Date.now() + offsetMs);
const advance = (seconds: number) => {
  offsetMs += seconds * 1000;
};

let f: IdentityFixture;
let browser: TestBrowser;
let refreshToken: string;

beforeAll(async () => {
  f = await createIdentityFixture({}, { clock });
  await addTenant(f, {
    slug: 'sakura',
    name: 'さくら総合病院',
    ownerEmail: 'owner@sakura.example',
    password: 'owner-pass-1',
  });
  browser = new TestBrowser(f.identity.app);
  const verifier = randomBytes(32).toString('base64url');
  const redirectUri = 'https://localhost:3000/app/auth/redirect';
  const page = await browser.navigate(
    'GET',
    `/oidc/auth?${new URLSearchParams({
      client_id: 'renkei-web',
      response_type: 'code',
      redirect_uri: redirectUri,
      scope: `openid profile offline_access ${scopeFor(f.config.resources.main)}`,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    })}`,
  );
  const action = /action="([^"]+)"/.exec(page.body)![1]!;
  const done = await browser.navigate('POST', action, {
    form: { login: 'owner@sakura.example', password: 'owner-pass-1' },
  });
  const code = new URL(done.location!).searchParams.get('code')!;
  const exchanged = await browser.request('POST', '/oidc/token', {
    form: {
      client_id: 'renkei-web',
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    },
  });
  refreshToken = JSON.parse(exchanged.body).refresh_token;
});

afterAll(async () => {
  await f?.close();
});

/** A fresh access token from the provider (the refresh grant MSAL uses) and its ID token. */
async function providerTokens() {
  const res = await browser.request('POST', '/oidc/token', {
    form: {
      client_id: 'renkei-web',
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      scope: `openid ${scopeFor(f.config.resources.main)}`,
    },
  });
  expect(res.status, res.body).toBe(200);
  const body = JSON.parse(res.body) as { access_token: string; id_token: string; refresh_token?: string };
  refreshToken = body.refresh_token ?? refreshToken;
  return { access: body.access_token, id: body.id_token };
}

const kid = (token: string) => decodeProtectedHeader(token).kid;
const publishedKids = async () =>
  (JSON.parse((await browser.request('GET', '/oidc/jwks')).body) as { keys: { kid: string; d?: string }[] }).keys;

/** Verifies as a command or query service would, against the JWKS the provider publishes now. */
async function verifiesAgainstPublishedJwks(token: string): Promise<boolean> {
  const jwks = createLocalJWKSet({ keys: (await publishedKids()) as never });
  return jwtVerify(token, jwks, { issuer: f.identity.issuer }).then(
    () => true,
    () => false,
  );
}

const currentUserStatus = async (token: string) =>
  (
    await f.identity.app.inject({
      method: 'GET',
      url: '/api/current_user',
      headers: { authorization: `Bearer ${token}` },
    })
  ).statusCode;

describe('signing-key rotation', () => {
  it('publishes a rotated key ahead of use, signs with it later, and drops the old one after its tokens expired', async () => {
    const before = await providerTokens();
    const oldKid = kid(before.access)!;
    expect(kid(before.id)).toBe(oldKid);
    // Minted by the ops CLI and not shown to the service until the end.
    const cliBefore = await issueAccessToken(
      { ...f, clock },
      {
        tenantSlug: 'sakura',
        email: 'owner@sakura.example',
        audience: 'main',
      },
    );
    expect(kid(cliBefore)).toBe(oldKid);

    // `pnpm ops keys rotate`: the new key is in the JWKS at once, but nothing signs with it yet.
    const rotated = await rotateSigningKey(identityDb(f.db), f.config, clock());
    await f.identity.refreshSigningKeys();
    const published = await publishedKids();
    expect(published.map((k) => k.kid).sort()).toEqual([oldKid, rotated.kid].sort());
    expect(published.every((k) => k.d === undefined)).toBe(true);
    expect(kid((await providerTokens()).access)).toBe(oldKid);

    // Past the lead time the new key signs; tokens of the old one still verify everywhere.
    advance(f.config.signingKeys.forcedLeadSeconds + 1);
    await f.identity.refreshSigningKeys();
    const after = await providerTokens();
    expect(kid(after.access)).toBe(rotated.kid);
    expect(kid(after.id)).toBe(rotated.kid);
    expect(
      kid(
        await issueAccessToken(
          { ...f, clock },
          { tenantSlug: 'sakura', email: 'owner@sakura.example', audience: 'main' },
        ),
      ),
    ).toBe(rotated.kid);
    expect(await verifiesAgainstPublishedJwks(before.access)).toBe(true);
    expect(await verifiesAgainstPublishedJwks(after.access)).toBe(true);
    expect(await currentUserStatus(before.access)).toBe(200);
    expect(await currentUserStatus(after.access)).toBe(200);

    // Once every token the old key signed has expired, it leaves the JWKS and the database.
    advance(retentionSeconds(f.config) - f.config.signingKeys.forcedLeadSeconds);
    await f.identity.refreshSigningKeys();
    expect((await publishedKids()).map((k) => k.kid)).toContain(oldKid);
    advance(f.config.signingKeys.forcedLeadSeconds + 1);
    await f.identity.refreshSigningKeys();
    expect((await publishedKids()).map((k) => k.kid)).toEqual([rotated.kid]);
    expect((await getJwks(f)).keys.map((k) => k.kid)).toEqual([rotated.kid]);
    expect(await verifiesAgainstPublishedJwks(before.access)).toBe(false);
    expect(await verifiesAgainstPublishedJwks(cliBefore)).toBe(false);
    // (A token the service verified before is remembered for at most a minute; this one it never saw.)
    expect(await currentUserStatus(cliBefore)).toBe(401);
    expect(await currentUserStatus(after.access)).toBe(200);
  });

  it('publishes the scheduled successor a day before the current key is due', async () => {
    const [current] = await loadSigningKeys(identityDb(f.db));
    const { rotationSeconds, prepublishSeconds } = f.config.signingKeys;
    offsetMs = current!.signsFrom.getTime() + (rotationSeconds - prepublishSeconds - 60) * 1000 - Date.now();
    await f.identity.refreshSigningKeys();
    expect(await loadSigningKeys(identityDb(f.db))).toHaveLength(1);

    advance(61);
    await f.identity.refreshSigningKeys();
    const keys = await loadSigningKeys(identityDb(f.db));
    expect(keys).toHaveLength(2);
    const next = keys.find((k) => k.kid !== current!.kid)!;
    // Due at the end of the rotation period, and never sooner than a full day after publication.
    const due = current!.signsFrom.getTime() + rotationSeconds * 1000;
    expect(next.signsFrom.getTime() - due).toBeGreaterThanOrEqual(0);
    expect(next.signsFrom.getTime() - due).toBeLessThan(5000);
    expect((await publishedKids()).map((k) => k.kid)).toContain(next.kid);
    expect(kid((await providerTokens()).access)).toBe(current!.kid);

    advance(prepublishSeconds);
    await f.identity.refreshSigningKeys();
    expect(kid((await providerTokens()).access)).toBe(next.kid);
  });

  it('accepts a token of a key another replica rotated in before this one polled', async () => {
    // Another replica (or the ops CLI against DATABASE_URL) rotates; this app has not looked yet.
    const rotated = await rotateSigningKey(identityDb(f.db), f.config, clock());
    advance(f.config.signingKeys.forcedLeadSeconds + 1);
    const token = await issueAccessToken(
      { ...f, clock },
      { tenantSlug: 'sakura', email: 'owner@sakura.example', audience: 'main' },
    );
    expect(kid(token)).toBe(rotated.kid);
    // The in-process key set meets an unknown kid, re-reads the keys and verifies (it re-reads at most
    // once a second, so a flood of made-up kids cannot hammer the database; the first test just did).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await currentUserStatus(token)).toBe(200);
    expect(kid((await providerTokens()).access)).toBe(rotated.kid);
  });
});
