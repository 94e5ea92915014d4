import type { FeatureKey, Plan } from '@renkei/contracts';
import { deriveFeatures, type FeatureOverrides } from './tenant.plans.ts';
import type { IdentityDb } from '../db/identity.tables.ts';

export interface TenantRow {
  id: string;
  slug: string;
  name: string;
  logo: string | null;
  plan: Plan;
  feature_overrides: FeatureOverrides;
  max_account_count: number | null;
  max_tag_count: number | null;
  ip_allow_list: string[];
  medical_institution_id: string | null;
  prefecture: string | null;
  latitude: number | null;
  longitude: number | null;
  demo: boolean;
  enabled_phase: boolean;
  enabled_mc_map: boolean;
  enabled_op_optimizer: boolean;
  enabled_additional_referral_data: boolean;
  enabled_medical_institution_ai: boolean;
  enabled_audio_transcription: boolean;
  max_referral_hospital_admission_period: number | null;
  is_group: boolean;
  group_medical_institutions: { id: string; name: string }[];
  data_availabilities: string[];
  email_sender_allowed_addresses: string[];
}

export async function findTenantById(db: IdentityDb, id: string): Promise<TenantRow | undefined> {
  return (await db.selectFrom('identity.tenants').selectAll().where('id', '=', id).executeTakeFirst()) as
    TenantRow | undefined;
}

export async function findTenantBySlug(db: IdentityDb, slug: string): Promise<TenantRow | undefined> {
  return (await db.selectFrom('identity.tenants').selectAll().where('slug', '=', slug).executeTakeFirst()) as
    TenantRow | undefined;
}

export function tenantFeatures(tenant: Pick<TenantRow, 'plan' | 'feature_overrides'>): FeatureKey[] {
  return deriveFeatures(tenant.plan, tenant.feature_overrides);
}

/**
 * What an account of the tenant may use: the tenant's features less what its 「CRMを利用する」 flag
 * (spec §3, §6) turns off — the liaison work recorded against partners: communications, their labels
 * and report, tasks, action lists, mail campaigns. The institution master, its CRM page and the referral
 * analysis stay, so an analysis-only account can still open the institutions it ranks.
 * docs/decisions.md "Account flags".
 */
const crmFeatures: readonly FeatureKey[] = [
  'communications',
  'communication_labels',
  'communication_report',
  'tasks',
  'action_lists',
  'emails',
];

export function accountFeatures(
  tenant: Pick<TenantRow, 'plan' | 'feature_overrides'>,
  account: { enabled_crm: boolean },
): FeatureKey[] {
  const features = tenantFeatures(tenant);
  return account.enabled_crm ? features : features.filter((f) => !crmFeatures.includes(f));
}
