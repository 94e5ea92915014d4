import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopeFor } from '@renkei/contracts';
import { addTenant } from './index.ts';
import { createIdentityFixture, type IdentityFixture } from './testing/identity-fixture.ts';
import { TestBrowser } from './testing/test-browser.ts';

// The embedded default runs on PGlite's single connection: the whole sign-in must work there too.
let f: IdentityFixture;

beforeAll(async () => {
  f = await createIdentityFixture({}, { engine: 'pglite' });
  await addTenant(f, { slug: 'demo', name: '連携総合病院', ownerEmail: 'owner@demo.example', password: 'demo-pass-1' });
});

afterAll(async () => {
  await f?.close();
});

describe('identity on the embedded database', () => {
  it('signs in, exchanges the code, refreshes after a restart and answers /current_user', async () => {
    const browser = new TestBrowser(f.identity.app);
    const verifier = randomBytes(32).toString('base64url');
    const redirectUri = 'https://localhost:3000/app/auth/redirect';
    const scope = `openid profile offline_access ${scopeFor(f.config.resources.main)}`;
    const page = await browser.navigate(
      'GET',
      `/oidc/auth?${new URLSearchParams({
        client_id: 'renkei-web',
        response_type: 'code',
        redirect_uri: redirectUri,
        scope,
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      })}`,
    );
    const action = /action="([^"]+)"/.exec(page.body)![1]!;
    const done = await browser.navigate('POST', action, {
      form: { login: 'owner@demo.example', password: 'demo-pass-1' },
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
    expect(exchanged.status).toBe(200);
    const tokens = JSON.parse(exchanged.body) as { access_token: string; refresh_token: string };

    await f.restart();
    const refreshed = await new TestBrowser(f.identity.app).request('POST', '/oidc/token', {
      form: { client_id: 'renkei-web', grant_type: 'refresh_token', refresh_token: tokens.refresh_token, scope },
    });
    expect(refreshed.status).toBe(200);
    const current = await f.identity.app.inject({
      method: 'GET',
      url: '/api/current_user',
      headers: { authorization: `Bearer ${JSON.parse(refreshed.body).access_token}` },
    });
    expect(current.statusCode).toBe(200);
    expect(current.json().tenant.name).toBe('連携総合病院');
  });
});
