import { afterAll, beforeAll, expect, it } from 'vitest';
import { walkRolesMatrix } from '@renkei/service-kit/testing';
import { addTenant, issueAccessToken } from './index.ts';
import { createIdentityFixture, type IdentityFixture } from './testing/identity-fixture.ts';

let f: IdentityFixture;
const emailOf = {
  member: 'member@matrix.example',
  owner: 'owner@matrix.example',
  'member+cs': 'cs-member@matrix.example',
  'owner+cs': 'cs-owner@matrix.example',
};

beforeAll(async () => {
  f = await createIdentityFixture();
  await addTenant(f, {
    slug: 'matrix',
    name: '権限表病院',
    ownerEmail: emailOf.owner,
    password: 'owner-pass-1',
    members: [
      { username: 'メンバー', email: emailOf.member, password: 'member-pass-1' },
      { username: 'CS メンバー', email: emailOf['member+cs'], password: 'member-pass-2', csAccount: true },
      { username: 'CS オーナー', email: emailOf['owner+cs'], password: 'owner-pass-2', csAccount: true, role: 'owner' },
    ],
  });
});

afterAll(async () => {
  await f?.close();
});

it('answers every identity endpoint for member, owner and the support accounts as the roles matrix says', async () => {
  const { checked, mismatches } = await walkRolesMatrix({
    app: f.identity.app,
    service: 'identity',
    served: f.identity.app.servedEndpointIds(),
    token: ({ role, csAccount }) =>
      issueAccessToken(f, {
        tenantSlug: 'matrix',
        email: emailOf[`${role}${csAccount ? '+cs' : ''}` as keyof typeof emailOf],
        audience: 'main',
      }),
  });
  expect(mismatches).toEqual([]);
  expect(checked).toBeGreaterThanOrEqual(8 * 4);
});
