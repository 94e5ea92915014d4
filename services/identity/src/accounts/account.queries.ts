import { sql } from 'kysely';
import type { Role } from '@renkei/contracts';
import type { IdentityDb } from '../db/identity.tables.ts';

export interface AccountRow {
  id: string;
  tenant_id: string;
  username: string;
  email: string | null;
  login_name: string | null;
  role: Role;
  password_hash: string;
  is_confirmed: boolean;
  enabled_crm: boolean;
  enabled_mc_map: boolean;
  cs_account: boolean;
  active: boolean;
  last_login_date: Date | null;
  own_department_id: string | null;
  default_facility_type_ids: string[];
  enabled_notification: boolean;
  enabled_communication_reactions_summary: boolean;
  enabled_alerts_summary: boolean;
  enabled_medical_institution_report_alert: boolean;
}

export async function findAccountById(db: IdentityDb, id: string): Promise<AccountRow | undefined> {
  return (await db.selectFrom('identity.accounts').selectAll().where('id', '=', id).executeTakeFirst()) as
    AccountRow | undefined;
}

/** The sign-in identifier is an email or a login name; both are unique across tenants. */
export async function findAccountByLogin(db: IdentityDb, login: string): Promise<AccountRow | undefined> {
  const value = login.trim().toLowerCase();
  if (!value) return undefined;
  return (await db
    .selectFrom('identity.accounts')
    .selectAll()
    .where((eb) => eb.or([eb(sql`lower(email)`, '=', value), eb(sql`lower(login_name)`, '=', value)]))
    .executeTakeFirst()) as AccountRow | undefined;
}

export async function countAccounts(db: IdentityDb, tenantId: string): Promise<number> {
  const row = await db
    .selectFrom('identity.accounts')
    .select(sql<string>`count(*)`.as('n'))
    .where('tenant_id', '=', tenantId)
    .where('active', '=', true)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
