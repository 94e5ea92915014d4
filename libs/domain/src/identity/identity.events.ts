import { z } from 'zod';
import { FeatureKey, Plan, Role } from '@renkei/contracts';
import { eventParser } from '../event-union.ts';

/**
 * Events the identity service publishes so read models can show names and enforce tenant limits.
 * They never carry secrets: password hashes, reset tokens and keys stay in identity's own tables.
 * Streams: `tenant-<uuid>` and `account-<uuid>` (see `streamId`).
 */
export const TenantLimits = z.object({
  max_account_count: z.number().int().nullable(),
  max_tag_count: z.number().int().nullable(),
});
export type TenantLimits = z.infer<typeof TenantLimits>;

export const TenantRegistered = z.object({
  tenant_id: z.string().uuid(),
  slug: z.string(),
  name: z.string(),
  plan: Plan,
  features: z.array(FeatureKey),
  limits: TenantLimits,
  /** Added later: registrations stored before it carried no flag, and phases were off then. */
  enabled_phase: z.boolean().default(false),
  /**
   * Senders allowed for email campaigns when the tenant has `email_sender_restricted`. Added later:
   * events stored before it carried none.
   */
  email_sender_allowed_addresses: z.array(z.string()).default([]),
});
export type TenantRegistered = z.infer<typeof TenantRegistered>;

export const TenantSettingsChanged = TenantRegistered.extend({
  enabled_phase: z.boolean(),
  medical_institution_id: z.string().nullable(),
  /**
   * The tenant's group institutions (ids in the institution master). Added later: settings changes
   * stored before it carried none, which is what those tenants had.
   */
  group_medical_institution_ids: z.array(z.string().uuid()).default([]),
});
export type TenantSettingsChanged = z.infer<typeof TenantSettingsChanged>;

export const AccountRegistered = z.object({
  account_id: z.string().uuid(),
  tenant_id: z.string().uuid(),
  username: z.string(),
  email: z.string().nullable(),
  login_name: z.string().nullable(),
  role: Role,
  cs_account: z.boolean(),
});
export type AccountRegistered = z.infer<typeof AccountRegistered>;

export const AccountUpdated = AccountRegistered.extend({ is_confirmed: z.boolean(), active: z.boolean() });
export type AccountUpdated = z.infer<typeof AccountUpdated>;

export const identityEventSchemas = {
  TenantRegistered,
  TenantSettingsChanged,
  AccountRegistered,
  AccountUpdated,
} as const;
export type IdentityEventType = keyof typeof identityEventSchemas;

/** A stored event of a `tenant-<uuid>` stream; anything else throws. */
export const parseTenantEvent = eventParser('tenant', { TenantRegistered, TenantSettingsChanged });
/** A stored event of an `account-<uuid>` stream; anything else throws. */
export const parseAccountEvent = eventParser('account', { AccountRegistered, AccountUpdated });
