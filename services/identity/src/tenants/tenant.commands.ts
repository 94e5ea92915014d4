import { randomUUID } from 'node:crypto';
import { conflict, notFound, Plan, unprocessable, type FieldError } from '@renkei/contracts';
import type { AdminDeps } from '../deps.ts';
import { migrateIdentity } from '../db/identity.migrations.ts';
import { enqueueAccountRegistered, insertAccount, type NewAccount } from '../accounts/account.commands.ts';
import type { AccountRow } from '../accounts/account.queries.ts';
import { enqueueIdentityEvent, publishQueued, tenantRegisteredData } from '../identity.events.ts';
import { isValidCidr } from './ip-allow-list.ts';
import type { FeatureOverrides } from './tenant.plans.ts';
import type { TenantRow } from './tenant.queries.ts';

export interface NewTenant {
  slug: string;
  name: string;
  ownerEmail: string;
  password: string;
  ownerName?: string | undefined;
  plan?: Plan | undefined;
  members?: NewAccount[] | undefined;
  featureOverrides?: FeatureOverrides | undefined;
  maxAccountCount?: number | null | undefined;
  maxTagCount?: number | null | undefined;
  ipAllowList?: string[] | undefined;
  demo?: boolean | undefined;
  prefecture?: string | null | undefined;
  latitude?: number | null | undefined;
  longitude?: number | null | undefined;
  medicalInstitutionId?: string | null | undefined;
  enabledPhase?: boolean | undefined;
  emailSenderAllowedAddresses?: string[] | undefined;
}

export interface AddedTenant {
  tenantId: string;
  ownerId: string;
  memberIds: string[];
}

const slugPattern = /^[a-z0-9][a-z0-9-]{1,62}$/;

function validateTenant(input: NewTenant): FieldError[] {
  const errors: FieldError[] = [];
  if (!slugPattern.test(input.slug)) {
    errors.push({ field: 'slug', message: 'スラッグは半角英小文字・数字・ハイフンの2〜63文字で入力してください' });
  }
  if (!input.name.trim()) errors.push({ field: 'name', message: 'テナント名を入力してください' });
  if (input.plan !== undefined && !Plan.safeParse(input.plan).success) {
    errors.push({ field: 'plan', message: 'プランが正しくありません' });
  }
  for (const cidr of input.ipAllowList ?? []) {
    if (!isValidCidr(cidr))
      errors.push({ field: 'ip_allow_list', message: `IPアドレスの形式が正しくありません: ${cidr}` });
  }
  return errors;
}

/**
 * Registers a tenant with its owner (and optional members) and queues TenantRegistered and
 * AccountRegistered in one transaction, then relays them. Used by the ops CLI and the demo seed.
 */
export async function addTenant(deps: AdminDeps, input: NewTenant): Promise<AddedTenant> {
  const errors = validateTenant(input);
  if (errors.length) throw unprocessable(errors);
  await migrateIdentity(deps);
  const { tenant, accounts, eventIds } = await deps.db.kysely.transaction().execute(async (trx) => {
    const existing = await trx
      .selectFrom('identity.tenants')
      .select('id')
      .where('slug', '=', input.slug)
      .executeTakeFirst();
    if (existing) throw conflict(`テナント「${input.slug}」は既に存在します。`);
    const tenant = (await trx
      .insertInto('identity.tenants')
      .values({
        id: randomUUID(),
        slug: input.slug,
        name: input.name.trim(),
        plan: input.plan ?? 'standard202211',
        feature_overrides: JSON.stringify(input.featureOverrides ?? {}),
        max_account_count: input.maxAccountCount ?? null,
        max_tag_count: input.maxTagCount ?? null,
        ip_allow_list: JSON.stringify(input.ipAllowList ?? []),
        demo: input.demo ?? false,
        prefecture: input.prefecture ?? null,
        latitude: input.latitude ?? null,
        longitude: input.longitude ?? null,
        medical_institution_id: input.medicalInstitutionId ?? null,
        enabled_phase: input.enabledPhase ?? false,
        email_sender_allowed_addresses: JSON.stringify(input.emailSenderAllowedAddresses ?? []),
      })
      .returningAll()
      .executeTakeFirstOrThrow()) as TenantRow;
    const people: NewAccount[] = [
      {
        username: input.ownerName ?? input.ownerEmail.split('@')[0] ?? input.ownerEmail,
        email: input.ownerEmail,
        password: input.password,
        role: 'owner',
      },
      ...(input.members ?? []),
    ];
    if (tenant.max_account_count !== null && people.length > tenant.max_account_count) {
      throw unprocessable([
        { field: 'members', message: `アカウント数の上限（${tenant.max_account_count}件）を超えています` },
      ]);
    }
    const accounts: AccountRow[] = [];
    for (const person of people) accounts.push(await insertAccount(trx, tenant.id, person));
    const eventIds = [
      await enqueueIdentityEvent(trx, 'tenant', tenant.id, 'TenantRegistered', tenantRegisteredData(tenant), {
        tenantId: tenant.id,
        accountId: null,
      }),
    ];
    for (const account of accounts) eventIds.push(await enqueueAccountRegistered(trx, account));
    return { tenant, accounts, eventIds };
  });
  await publishQueued(deps, eventIds);
  const [owner, ...members] = accounts;
  return { tenantId: tenant.id, ownerId: owner!.id, memberIds: members.map((m) => m.id) };
}

export interface TenantChanges {
  name?: string;
  plan?: Plan;
  featureOverrides?: FeatureOverrides;
  maxAccountCount?: number | null;
  maxTagCount?: number | null;
  ipAllowList?: string[];
  enabledPhase?: boolean;
  medicalInstitutionId?: string | null;
  prefecture?: string | null;
  latitude?: number | null;
  longitude?: number | null;
  demo?: boolean;
  emailSenderAllowedAddresses?: string[];
  dataAvailabilities?: string[];
}

/**
 * Changes a tenant's settings (plan, overrides, limits, allow-list…) and publishes
 * TenantSettingsChanged so read models that enforce limits or gate features follow.
 */
export async function updateTenant(deps: AdminDeps, slug: string, changes: TenantChanges): Promise<void> {
  const errors = validateTenant({
    slug,
    name: changes.name ?? 'unchanged',
    ownerEmail: '',
    password: '',
    plan: changes.plan,
    ipAllowList: changes.ipAllowList,
  });
  if (errors.length) throw unprocessable(errors);
  const set: Record<string, unknown> = {};
  if (changes.name !== undefined) set.name = changes.name.trim();
  if (changes.plan !== undefined) set.plan = changes.plan;
  if (changes.featureOverrides !== undefined) set.feature_overrides = JSON.stringify(changes.featureOverrides);
  if (changes.maxAccountCount !== undefined) set.max_account_count = changes.maxAccountCount;
  if (changes.maxTagCount !== undefined) set.max_tag_count = changes.maxTagCount;
  if (changes.ipAllowList !== undefined) set.ip_allow_list = JSON.stringify(changes.ipAllowList);
  if (changes.enabledPhase !== undefined) set.enabled_phase = changes.enabledPhase;
  if (changes.medicalInstitutionId !== undefined) set.medical_institution_id = changes.medicalInstitutionId;
  if (changes.prefecture !== undefined) set.prefecture = changes.prefecture;
  if (changes.latitude !== undefined) set.latitude = changes.latitude;
  if (changes.longitude !== undefined) set.longitude = changes.longitude;
  if (changes.demo !== undefined) set.demo = changes.demo;
  if (changes.emailSenderAllowedAddresses !== undefined) {
    set.email_sender_allowed_addresses = JSON.stringify(changes.emailSenderAllowedAddresses);
  }
  if (changes.dataAvailabilities !== undefined) set.data_availabilities = JSON.stringify(changes.dataAvailabilities);
  const eventId = await deps.db.kysely.transaction().execute(async (trx) => {
    const tenant = (await trx
      .updateTable('identity.tenants')
      .set({ ...set, updated_at: new Date() })
      .where('slug', '=', slug)
      .returningAll()
      .executeTakeFirst()) as TenantRow | undefined;
    if (!tenant) throw notFound(`テナント「${slug}」が見つかりません。`);
    return enqueueIdentityEvent(
      trx,
      'tenant',
      tenant.id,
      'TenantSettingsChanged',
      {
        ...tenantRegisteredData(tenant),
        enabled_phase: tenant.enabled_phase,
        medical_institution_id: tenant.medical_institution_id,
      },
      { tenantId: tenant.id, accountId: null },
    );
  });
  await publishQueued(deps, [eventId]);
}
