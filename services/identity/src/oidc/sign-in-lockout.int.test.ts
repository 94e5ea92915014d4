import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addTenant, listMails } from '../index.ts';
import { lockedOutMessage, wrongCredentialsMessage } from '../pages/sign-in.page.ts';
import { createIdentityFixture, type IdentityFixture } from '../testing/identity-fixture.ts';
import { TestBrowser } from '../testing/test-browser.ts';
import { defaultLockoutPolicy } from './sign-in-lockout.ts';
import { identityDb } from '../db/identity.tables.ts';

let f: IdentityFixture;

beforeAll(async () => {
  f = await createIdentityFixture();
  await addTenant(f, {
    slug: 'sakura',
    name: 'さくら総合病院',
    ownerEmail: 'owner@sakura.example',
    password: 'owner-pass-1',
    members: [
      { username: '鈴木 一郎', email: 'suzuki@sakura.example', loginName: 'suzuki', password: 'member-pass-1' },
      { username: '田中 次郎', email: 'tanaka@sakura.example', password: 'member-pass-2' },
      { username: '高橋 三郎', email: 'takahashi@sakura.example', password: 'member-pass-3' },
    ],
  });
});

afterAll(async () => {
  await f?.close();
});

const { maxFailures } = defaultLockoutPolicy;

/** One sign-in through the provider's interaction, as a browser submits the form. */
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
  const result = await browser.navigate('POST', action, { form: { login, password } });
  return {
    signedIn: Boolean(result.location?.includes('/app/auth/redirect?code=')),
    locked: result.body.includes(lockedOutMessage),
    wrong: result.body.includes(wrongCredentialsMessage),
  };
}

async function fail(login: string, times: number) {
  const results = [];
  for (let i = 0; i < times; i++) results.push(await signIn(login, `wrong-password-${i}`));
  return results;
}

describe('sign-in lockout', () => {
  it(`locks an account after ${maxFailures} wrong passwords, even for the right one, and not its neighbours`, async () => {
    const before = await fail('suzuki@sakura.example', maxFailures - 1);
    expect(before.every((r) => r.wrong && !r.locked)).toBe(true);
    // The failures are counted per account, whichever identifier was typed.
    const last = await signIn('SUZUKI', 'still-wrong');
    expect(last).toMatchObject({ locked: true, wrong: false, signedIn: false });

    expect(await signIn('suzuki@sakura.example', 'member-pass-1')).toMatchObject({ locked: true, signedIn: false });
    expect(await signIn('suzuki', 'member-pass-1')).toMatchObject({ locked: true, signedIn: false });
    expect((await signIn('owner@sakura.example', 'owner-pass-1')).signedIn).toBe(true);

    // When the lock runs out, the right password works and the count starts again.
    await identityDb(f.db)
      .updateTable('identity.sign_in_failures')
      .set({ locked_until: new Date(Date.now() - 1000), window_started_at: new Date(Date.now() - 16 * 60_000) })
      .execute();
    expect((await signIn('suzuki', 'member-pass-1')).signedIn).toBe(true);
    expect((await fail('suzuki', 1))[0]).toMatchObject({ wrong: true, locked: false });
  });

  it('treats an unknown login exactly like an account, so the lock reveals nothing', async () => {
    const attempts = await fail('nobody@sakura.example', maxFailures);
    expect(attempts.slice(0, -1).every((r) => r.wrong && !r.locked)).toBe(true);
    expect(attempts.at(-1)).toMatchObject({ locked: true, wrong: false });
    expect((await fail('nobody@sakura.example', 1))[0]).toMatchObject({ locked: true });
    // What was typed as a login is not kept in the clear.
    const keys = await identityDb(f.db).selectFrom('identity.sign_in_failures').select('key').execute();
    expect(keys.map((k) => k.key).join()).not.toContain('nobody');
  });

  it('forgets failures after a successful sign-in', async () => {
    await fail('tanaka@sakura.example', maxFailures - 1);
    expect((await signIn('tanaka@sakura.example', 'member-pass-2')).signedIn).toBe(true);
    const again = await fail('tanaka@sakura.example', maxFailures - 1);
    expect(again.every((r) => r.wrong && !r.locked)).toBe(true);
  });

  it('a password reset ends the lock at once', async () => {
    const attempts = await fail('takahashi@sakura.example', maxFailures);
    expect(attempts.at(-1)!.locked).toBe(true);

    const browser = new TestBrowser(f.identity.app);
    await browser.request('POST', '/oidc/password/forgot', { form: { email: 'takahashi@sakura.example' } });
    const mail = (await listMails(f.config.dataDir)).find((m) => m.to === 'takahashi@sakura.example')!;
    const token = new URL(/https:\/\/\S+/.exec(mail.text)![0]).searchParams.get('token')!;
    const done = await browser.request('POST', '/oidc/password/reset', {
      form: { token, password: 'fresh-password-3', password_confirmation: 'fresh-password-3' },
    });
    expect(done.status).toBe(200);
    expect((await signIn('takahashi@sakura.example', 'fresh-password-3')).signedIn).toBe(true);
  });
});
