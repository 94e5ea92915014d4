import type { CurrentUser, Profile, Staff } from '@renkei/contracts';
import { notFound } from '@renkei/contracts';
import { findAccountById, type AccountRow } from '../accounts/account.queries.ts';
import { accountFeatures, findTenantById } from '../tenants/tenant.queries.ts';
import { logoPath } from '../tenants/tenant-logo.ts';
import type { IdentityDb } from '../db/identity.tables.ts';
import { currentOwnDepartment } from './own-departments.ts';

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/** The account of the token, inside the token's tenant; anything else is "not found". */
export async function loadOwnAccount(db: IdentityDb, tenantId: string, accountId: string): Promise<AccountRow> {
  const account = await findAccountById(db, accountId);
  if (!account || account.tenant_id !== tenantId || !account.active) throw notFound();
  return account;
}

/** The account and its tenant as stored; `own_department_id` as the account holds it (the route checks it). */
export async function getCurrentUser(db: IdentityDb, tenantId: string, accountId: string): Promise<CurrentUser> {
  const account = await loadOwnAccount(db, tenantId, accountId);
  const tenant = await findTenantById(db, tenantId);
  if (!tenant) throw notFound();
  return {
    id: account.id,
    username: account.username,
    email: account.email,
    login_name: account.login_name,
    role: account.role,
    last_login_date: iso(account.last_login_date),
    is_confirmed: account.is_confirmed,
    enabled_crm: account.enabled_crm,
    enabled_mc_map: account.enabled_mc_map,
    cs_account: account.cs_account,
    tenant: {
      id: tenant.id,
      name: tenant.name,
      logo: logoPath(tenant.logo),
      medical_institution_id: tenant.medical_institution_id,
      prefecture: tenant.prefecture,
      longitude: tenant.longitude,
      latitude: tenant.latitude,
      demo: tenant.demo,
      plan: tenant.plan,
      enabled_mc_map: tenant.enabled_mc_map,
      enabled_op_optimizer: tenant.enabled_op_optimizer,
      max_account_count: tenant.max_account_count,
      max_tag_count: tenant.max_tag_count,
      group_medical_institutions: tenant.group_medical_institutions,
      enabled_phase: tenant.enabled_phase,
      data_availabilities: tenant.data_availabilities,
      enabled_additional_referral_data: tenant.enabled_additional_referral_data,
      enabled_medical_institution_ai: tenant.enabled_medical_institution_ai,
      enabled_audio_transcription: tenant.enabled_audio_transcription,
      max_referral_hospital_admission_period: tenant.max_referral_hospital_admission_period,
      is_group: tenant.is_group,
    },
    // Features come from the tenant and the account now, not from the token, so a plan change or an
    // owner's change of the account's flags shows on the next load.
    features: accountFeatures(tenant, account),
    own_department_id: account.own_department_id,
    default_facility_type_ids: account.default_facility_type_ids,
    email_sender_allowed_addresses: tenant.email_sender_allowed_addresses,
  };
}

export function profileOf(account: AccountRow, departmentIds: ReadonlySet<string>): Profile {
  return {
    username: account.username,
    own_department_id: currentOwnDepartment(account.own_department_id, departmentIds),
    notification_settings: {
      enabled_notification: account.enabled_notification,
      enabled_communication_reactions_summary: account.enabled_communication_reactions_summary,
      enabled_alerts_summary: account.enabled_alerts_summary,
      enabled_medical_institution_report_alert: account.enabled_medical_institution_report_alert,
    },
  };
}

export async function listStaffs(
  db: IdentityDb,
  tenantId: string,
  options: { includeCsAccounts: boolean; includeInactive: boolean },
): Promise<Staff[]> {
  let query = db
    .selectFrom('identity.accounts')
    .select(['id', 'username', 'cs_account'])
    .where('tenant_id', '=', tenantId)
    .orderBy('username')
    .orderBy('id');
  if (!options.includeCsAccounts) query = query.where('cs_account', '=', false);
  if (!options.includeInactive) query = query.where('active', '=', true);
  const rows = await query.execute();
  return rows.map((r) => ({ id: r.id as string, name: r.username as string, cs_account: r.cs_account as boolean }));
}
