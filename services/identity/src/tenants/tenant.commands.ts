import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { conflict, FeatureKey, Id, notFound, Plan, unprocessable, type FieldError } from '@renkei/contracts';
import type { AdminDeps } from '../deps.ts';
import { migrateIdentity } from '../db/identity.migrations.ts';
import { enqueueAccountRegistered, insertAccount, type NewAccount } from '../accounts/account.commands.ts';
import type { AccountRow } from '../accounts/account.queries.ts';
import { enqueueIdentityEvent, publishQueued, tenantRegisteredData } from '../identity.events.ts';
import { isValidCidr } from '@renkei/contracts/ip-allow-list';
import type { LogoImage } from './tenant-logo.ts';
import type { FeatureOverrides } from './tenant.plans.ts';
import type { TenantRow } from './tenant.queries.ts';
import { identityDb, type IdentityDb } from '../db/identity.tables.ts';

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
  const { tenant, accounts, eventIds } = await identityDb(deps.db)
    .transaction()
    .execute(async (trx) => {
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
  /** Replaces the tenant's group institutions: ids of the institution master, names taken from it. */
  groupMedicalInstitutionIds?: string[];
  /** Exactly these features are switched off by override (see `withFeaturesOff`). */
  featuresOff?: string[];
  isGroup?: boolean;
  /** A new logo (checked by `readLogo`), or null to remove it. */
  logo?: LogoImage | null;
}

/** Who changes the settings: recorded in the change history and the event's metadata. */
export interface TenantChangeOptions {
  by?: string | null;
}

/** The settings the change history compares, as the screen names them. */
const historyFields = {
  name: (t: TenantRow) => t.name,
  plan: (t: TenantRow) => t.plan,
  feature_overrides: (t: TenantRow) =>
    Object.entries(t.feature_overrides)
      .filter(([, on]) => on === false)
      .map(([key]) => key)
      .sort()
      .join(', '),
  medical_institution_id: (t: TenantRow) => t.medical_institution_id ?? '',
  group_medical_institutions: (t: TenantRow) => t.group_medical_institutions.map((g) => g.name).join(', '),
  is_group: (t: TenantRow) => String(t.is_group),
  enabled_phase: (t: TenantRow) => String(t.enabled_phase),
  max_account_count: (t: TenantRow) => (t.max_account_count === null ? '' : String(t.max_account_count)),
  max_tag_count: (t: TenantRow) => (t.max_tag_count === null ? '' : String(t.max_tag_count)),
  email_sender_allowed_addresses: (t: TenantRow) => t.email_sender_allowed_addresses.join(', '),
  ip_allow_list: (t: TenantRow) => t.ip_allow_list.join(', '),
  prefecture: (t: TenantRow) => t.prefecture ?? '',
  map_center: (t: TenantRow) => (t.latitude === null || t.longitude === null ? '' : `${t.latitude}, ${t.longitude}`),
  // The version hash: the history says that the image changed, not what it shows.
  logo: (t: TenantRow) => t.logo ?? '',
} satisfies Record<string, (t: TenantRow) => string>;

function settingChanges(before: TenantRow, after: TenantRow) {
  return Object.entries(historyFields).flatMap(([field, read]) => {
    const [b, a] = [read(before), read(after)];
    return b === a ? [] : [{ field, before: b, after: a }];
  });
}

const maxGroupMedicalInstitutions = 100;
const groupField = 'group_medical_institution_ids';

function validateGroupIds(ids: readonly string[]): FieldError[] {
  if (ids.length > maxGroupMedicalInstitutions) {
    return [{ field: groupField, message: `グループ医療機関は${maxGroupMedicalInstitutions}件まで設定できます` }];
  }
  return ids.flatMap((id, i) =>
    Id.safeParse(id).success
      ? []
      : [{ field: `${groupField}.${i}`, message: `グループ医療機関のIDが正しくありません: ${id}` }],
  );
}

/** The master's names of these institution ids (lower-case UUIDs); ids it does not hold are absent. */
export async function institutionNames(trx: IdentityDb, ids: readonly string[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const valid = ids.filter((id) => Id.safeParse(id).success);
  if (valid.length === 0) return names;
  // Before the first master import the table does not exist yet: then no id is known.
  const { rows: master } = await sql<{ present: boolean }>`
    SELECT to_regclass('ref.medical_institutions') IS NOT NULL AS present`.execute(trx);
  if (!master[0]?.present) return names;
  const { rows } = await sql<{ id: string; name: string }>`
    SELECT id::text AS id, name FROM ref.medical_institutions WHERE id = ANY(${sql.val(valid)}::uuid[])`.execute(trx);
  for (const row of rows) names.set(row.id, row.name);
  return names;
}

/**
 * The group institutions as stored on the tenant, `[{id, name}]` in the order given (duplicates
 * dropped), named from the institution master, which shares identity's database in every
 * deployment. An id the master does not hold is a 422.
 */
async function groupInstitutions(
  trx: IdentityDb,
  ids: readonly string[],
  field: string = groupField,
): Promise<{ id: string; name: string }[]> {
  const wanted = [...new Set(ids.map((id) => id.toLowerCase()))];
  if (wanted.length === 0) return [];
  const names = await institutionNames(trx, wanted);
  const errors = wanted.flatMap((id) =>
    names.has(id)
      ? []
      : [
          {
            field:
              field === groupField ? `${groupField}.${ids.findIndex((given) => given.toLowerCase() === id)}` : field,
            message: `医療機関マスタにない医療機関です: ${id}`,
          },
        ],
  );
  if (errors.length) throw unprocessable(errors);
  return wanted.map((id) => ({ id, name: names.get(id)! }));
}

/**
 * Changes a tenant's settings (plan, overrides, limits, allow-list, group institutions…) and publishes
 * TenantSettingsChanged so read models that enforce limits, gate features or mark group institutions
 * follow. Answers the tenant as changed.
 */
export async function updateTenant(
  deps: AdminDeps,
  slug: string,
  changes: TenantChanges,
  options: TenantChangeOptions = {},
): Promise<TenantRow> {
  const errors = validateTenant({
    slug,
    name: changes.name ?? 'unchanged',
    ownerEmail: '',
    password: '',
    plan: changes.plan,
    ipAllowList: changes.ipAllowList,
  });
  if (changes.groupMedicalInstitutionIds !== undefined) {
    errors.push(...validateGroupIds(changes.groupMedicalInstitutionIds));
  }
  (changes.featuresOff ?? []).forEach((key, i) => {
    if (!FeatureKey.safeParse(key).success)
      errors.push({ field: `features_off.${i}`, message: `不明な機能です: ${key}` });
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
  if (changes.isGroup !== undefined) set.is_group = changes.isGroup;
  if (changes.medicalInstitutionId !== undefined) set.medical_institution_id = changes.medicalInstitutionId;
  if (changes.prefecture !== undefined) set.prefecture = changes.prefecture;
  if (changes.latitude !== undefined) set.latitude = changes.latitude;
  if (changes.longitude !== undefined) set.longitude = changes.longitude;
  if (changes.demo !== undefined) set.demo = changes.demo;
  if (changes.emailSenderAllowedAddresses !== undefined) {
    set.email_sender_allowed_addresses = JSON.stringify(changes.emailSenderAllowedAddresses);
  }
  if (changes.dataAvailabilities !== undefined) set.data_availabilities = JSON.stringify(changes.dataAvailabilities);
  const { tenant, eventId } = await identityDb(deps.db)
    .transaction()
    .execute(async (trx) => {
      // Locked: the features-off list is applied to the overrides as they are now.
      const current = (await trx
        .selectFrom('identity.tenants')
        .selectAll()
        .where('slug', '=', slug)
        .forUpdate()
        .executeTakeFirst()) as TenantRow | undefined;
      if (!current) throw notFound(`テナント「${slug}」が見つかりません。`);
      if (changes.featuresOff !== undefined) {
        set.feature_overrides = JSON.stringify(
          withFeaturesOff(changes.featureOverrides ?? current.feature_overrides, changes.featuresOff as FeatureKey[]),
        );
      }
      if (changes.groupMedicalInstitutionIds !== undefined) {
        set.group_medical_institutions = JSON.stringify(
          await groupInstitutions(trx, changes.groupMedicalInstitutionIds),
        );
      }
      if (changes.medicalInstitutionId) {
        const [own] = await groupInstitutions(trx, [changes.medicalInstitutionId], 'medical_institution_id');
        set.medical_institution_id = own!.id;
      }
      if (changes.logo === null) {
        await trx.deleteFrom('identity.tenant_logos').where('tenant_id', '=', current.id).execute();
        set.logo = null;
      } else if (changes.logo) {
        const { contentType, data, version } = changes.logo;
        await trx
          .insertInto('identity.tenant_logos')
          .values({ tenant_id: current.id, content_type: contentType, data })
          .onConflict((oc) =>
            oc.column('tenant_id').doUpdateSet({ content_type: contentType, data, updated_at: new Date() }),
          )
          .execute();
        set.logo = version;
      }
      const tenant = (await trx
        .updateTable('identity.tenants')
        .set({ ...set, updated_at: new Date() })
        .where('id', '=', current.id)
        .returningAll()
        .executeTakeFirstOrThrow()) as TenantRow;
      const eventId = await enqueueIdentityEvent(
        trx,
        'tenant',
        tenant.id,
        'TenantSettingsChanged',
        {
          ...tenantRegisteredData(tenant),
          enabled_phase: tenant.enabled_phase,
          medical_institution_id: tenant.medical_institution_id,
          group_medical_institution_ids: tenant.group_medical_institutions.map((g) => g.id),
        },
        { tenantId: tenant.id, accountId: options.by ?? null },
      );
      const diff = settingChanges(current, tenant);
      if (diff.length) {
        await trx
          .insertInto('identity.tenant_setting_changes')
          .values({ tenant_id: tenant.id, account_id: options.by ?? null, changes: JSON.stringify(diff) })
          .execute();
      }
      return { tenant, eventId };
    });
  await publishQueued(deps, [eventId]);
  return tenant;
}

/**
 * The overrides with exactly `off` switched off: a feature switched off before and not listed now
 * is back to what the plan says; features switched on stay on unless listed.
 */
function withFeaturesOff(overrides: FeatureOverrides, off: readonly FeatureKey[]): FeatureOverrides {
  const next: FeatureOverrides = {};
  for (const [key, value] of Object.entries(overrides) as [FeatureKey, boolean | undefined][]) {
    if (value === true) next[key] = true;
  }
  for (const key of off) next[key] = false;
  return next;
}
