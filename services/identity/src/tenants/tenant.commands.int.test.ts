import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenantRegistered, TenantSettingsChanged } from '@renkei/domain';
import { streamId } from '@renkei/event-store';
import { addTenant, issueAccessToken, updateTenant } from '../index.ts';
import { createIdentityFixture, type IdentityFixture } from '../testing/identity-fixture.ts';
import { identityDb } from '../db/identity.tables.ts';

let f: IdentityFixture;
let tenantId: string;
const sakura = randomUUID();
const aoba = randomUUID();
const fuji = randomUUID();

beforeAll(async () => {
  f = await createIdentityFixture();
  ({ tenantId } = await addTenant(f, {
    slug: 'minato',
    name: 'みなと病院グループ',
    ownerEmail: 'owner@minato.example',
    password: 'owner-pass-1',
    plan: 'starter',
    enabledPhase: true,
  }));
});

afterAll(async () => {
  await f?.close();
});

/**
 * The master as identity reads it (id and name of `ref.medical_institutions`; the rest of its columns
 * belong to @renkei/institution-master, whose real import the ops test runs).
 */
async function createMaster() {
  await sql`CREATE SCHEMA IF NOT EXISTS ref`.execute(identityDb(f.db));
  await sql`CREATE TABLE ref.medical_institutions (id uuid PRIMARY KEY, name text NOT NULL)`.execute(identityDb(f.db));
  await sql`INSERT INTO ref.medical_institutions (id, name) VALUES
    (${sakura}, 'サクラ総合病院'), (${aoba}, 'あおば内科クリニック'), (${fuji}, '富士見病院')`.execute(
    identityDb(f.db),
  );
}

const tenantEvents = () => f.store.readStream(streamId('tenant', tenantId), { tenantId });
const tenantRow = () =>
  identityDb(f.db).selectFrom('identity.tenants').selectAll().where('id', '=', tenantId).executeTakeFirstOrThrow();

async function currentTenant() {
  const token = await issueAccessToken(f, { tenantSlug: 'minato', email: 'owner@minato.example', audience: 'main' });
  const response = await f.identity.app.inject({
    method: 'GET',
    url: '/api/current_user',
    headers: { 'x-forwarded-for': '127.0.0.1', authorization: `Bearer ${token}` },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().tenant as { group_medical_institutions: unknown; plan: string };
}

describe('tenant registration', () => {
  it('publishes enabled_phase with the registration', async () => {
    const [registered] = await tenantEvents();
    expect(registered).toMatchObject({ type: 'TenantRegistered', data: { enabled_phase: true } });
    // Registrations stored before the field existed had phases off.
    const { enabled_phase: _, ...older } = registered!.data as TenantRegistered;
    expect(TenantRegistered.parse(older).enabled_phase).toBe(false);
  });
});

describe('group institutions', () => {
  it('refuses every id before the master is imported, writing nothing', async () => {
    const before = (await tenantEvents()).length;
    await expect(updateTenant(f, 'minato', { groupMedicalInstitutionIds: [sakura] })).rejects.toMatchObject({
      status: 422,
      extra: { errors: [{ field: 'group_medical_institution_ids.0', message: expect.stringContaining(sakura) }] },
    });
    expect((await tenantEvents()).length).toBe(before);
  });

  it('stores the ids with their master names, shows them on current_user and publishes the ids', async () => {
    await createMaster();
    await updateTenant(f, 'minato', { groupMedicalInstitutionIds: [fuji, sakura.toUpperCase(), fuji] });
    expect((await currentTenant()).group_medical_institutions).toEqual([
      { id: fuji, name: '富士見病院' },
      { id: sakura, name: 'サクラ総合病院' },
    ]);
    const last = (await tenantEvents()).at(-1)!;
    expect(last).toMatchObject({
      type: 'TenantSettingsChanged',
      data: { group_medical_institution_ids: [fuji, sakura], enabled_phase: true },
    });
  });

  it('answers 422 naming each unknown or malformed id, and writes nothing (not even the other changes)', async () => {
    const before = { row: await tenantRow(), events: (await tenantEvents()).length };
    const unknown = randomUUID();
    await expect(
      updateTenant(f, 'minato', { plan: 'growth', groupMedicalInstitutionIds: [aoba, unknown] }),
    ).rejects.toMatchObject({
      status: 422,
      extra: {
        errors: [{ field: 'group_medical_institution_ids.1', message: `医療機関マスタにない医療機関です: ${unknown}` }],
      },
    });
    await expect(updateTenant(f, 'minato', { groupMedicalInstitutionIds: ['not-an-id'] })).rejects.toMatchObject({
      status: 422,
      extra: { errors: [{ field: 'group_medical_institution_ids.0' }] },
    });
    await expect(
      updateTenant(f, 'minato', { groupMedicalInstitutionIds: Array.from({ length: 101 }, () => randomUUID()) }),
    ).rejects.toMatchObject({
      status: 422,
      extra: {
        errors: [{ field: 'group_medical_institution_ids', message: 'グループ医療機関は100件まで設定できます' }],
      },
    });
    expect(await tenantRow()).toEqual(before.row);
    expect((await tenantEvents()).length).toBe(before.events);
  });

  it('keeps the group when other settings change, and clears it with an empty list', async () => {
    await updateTenant(f, 'minato', { maxTagCount: 10 });
    expect((await tenantEvents()).at(-1)!.data).toMatchObject({ group_medical_institution_ids: [fuji, sakura] });
    await updateTenant(f, 'minato', { groupMedicalInstitutionIds: [] });
    expect((await currentTenant()).group_medical_institutions).toEqual([]);
    expect((await tenantEvents()).at(-1)!.data).toMatchObject({ group_medical_institution_ids: [] });
  });

  it('publishes the allowed email senders, which the command side checks campaigns against', async () => {
    await updateTenant(f, 'minato', { emailSenderAllowedAddresses: ['renkei@example.jp'] });
    expect((await tenantEvents()).at(-1)!.data).toMatchObject({
      email_sender_allowed_addresses: ['renkei@example.jp'],
    });
  });

  it('reads settings changes stored before the field existed as having no group', () => {
    const older = {
      tenant_id: tenantId,
      slug: 'minato',
      name: 'みなと病院グループ',
      plan: 'starter',
      features: [],
      limits: { max_account_count: null, max_tag_count: null },
      enabled_phase: false,
      medical_institution_id: null,
    };
    expect(TenantSettingsChanged.parse(older).group_medical_institution_ids).toEqual([]);
  });
});

describe('features off', () => {
  it('switches off exactly the listed features, keeping features switched on', async () => {
    await updateTenant(f, 'minato', { featureOverrides: { emails: true, alerts: false } });
    await updateTenant(f, 'minato', { featuresOff: ['tags', 'labels'] });
    expect((await tenantRow()).feature_overrides).toEqual({ emails: true, tags: false, labels: false });
    const features = (await tenantEvents()).at(-1)!.data as { features: string[] };
    expect(features.features).toContain('emails');
    expect(features.features).not.toContain('tags');
    await updateTenant(f, 'minato', { featuresOff: [] });
    expect((await tenantRow()).feature_overrides).toEqual({ emails: true });
    await expect(updateTenant(f, 'minato', { featuresOff: ['tags', 'teleport'] })).rejects.toMatchObject({
      status: 422,
      extra: { errors: [{ field: 'features_off.1', message: '不明な機能です: teleport' }] },
    });
    expect((await tenantRow()).feature_overrides).toEqual({ emails: true });
  });
});
