import type { ColumnType, Generated, Kysely } from 'kysely';
import type { Database } from '@renkei/db';
import type { Plan, Role } from '@renkei/contracts';
import type { FeatureOverrides } from '../tenants/tenant.plans.ts';

/**
 * The identity schema as its migrations (`identity.migrations.ts`) leave it, for the typed queries of
 * the service. Migrations stay untyped (`IdentityDb`): they are frozen in time and must not follow
 * today's types.
 */

/** A column the database fills when the insert leaves it out. */
type Defaulted<T> = ColumnType<T, T | undefined, T>;
/** jsonb: read as parsed JSON; written as JSON text (arrays must be) or a plain object. */
type Json<T> = ColumnType<T, T | string, T | string>;
type DefaultedJson<T> = ColumnType<T, T | string | undefined, T | string>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;
type DefaultedTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;

interface TenantsTable {
  id: string;
  slug: string;
  name: string;
  logo: string | null;
  plan: Plan;
  feature_overrides: DefaultedJson<FeatureOverrides>;
  max_account_count: number | null;
  max_tag_count: number | null;
  ip_allow_list: DefaultedJson<string[]>;
  medical_institution_id: string | null;
  prefecture: string | null;
  latitude: number | null;
  longitude: number | null;
  demo: Defaulted<boolean>;
  enabled_phase: Defaulted<boolean>;
  enabled_mc_map: Defaulted<boolean>;
  enabled_op_optimizer: Defaulted<boolean>;
  enabled_additional_referral_data: Defaulted<boolean>;
  enabled_medical_institution_ai: Defaulted<boolean>;
  enabled_audio_transcription: Defaulted<boolean>;
  max_referral_hospital_admission_period: number | null;
  is_group: Defaulted<boolean>;
  group_medical_institutions: DefaultedJson<{ id: string; name: string }[]>;
  data_availabilities: DefaultedJson<string[]>;
  email_sender_allowed_addresses: DefaultedJson<string[]>;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

interface TenantLogosTable {
  tenant_id: string;
  content_type: string;
  data: Buffer;
  updated_at: DefaultedTimestamp;
}

interface AccountsTable {
  id: string;
  tenant_id: string;
  username: string;
  email: string | null;
  login_name: string | null;
  role: Role;
  password_hash: string;
  is_confirmed: Defaulted<boolean>;
  enabled_crm: Defaulted<boolean>;
  enabled_mc_map: Defaulted<boolean>;
  cs_account: Defaulted<boolean>;
  active: Defaulted<boolean>;
  last_login_date: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  own_department_id: string | null;
  default_facility_type_ids: DefaultedJson<string[]>;
  enabled_notification: Defaulted<boolean>;
  enabled_communication_reactions_summary: Defaulted<boolean>;
  enabled_alerts_summary: Defaulted<boolean>;
  enabled_medical_institution_report_alert: Defaulted<boolean>;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

interface PasswordResetsTable {
  token_hash: string;
  account_id: string;
  expires_at: Timestamp;
  used_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  created_at: DefaultedTimestamp;
  /** `reset` or `invitation`. */
  purpose: Defaulted<string>;
}

interface SignInTicketsTable {
  token_hash: string;
  account_id: string;
  expires_at: Timestamp;
  used_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  created_at: DefaultedTimestamp;
}

interface SecretsTable {
  name: string;
  value: Json<unknown>;
  created_at: DefaultedTimestamp;
}

interface OidcPayloadsTable {
  id: string;
  type: string;
  payload: Json<Record<string, unknown>>;
  grant_id: string | null;
  user_code: string | null;
  uid: string | null;
  expires_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  consumed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

interface OutboxTable {
  /** bigserial: read as text by node-postgres. */
  seq: ColumnType<string, never, never>;
  id: string;
  stream: string;
  type: string;
  data: Json<unknown>;
  metadata: Json<unknown>;
  created_at: DefaultedTimestamp;
  published_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  position: string | null;
  attempts: Defaulted<number>;
  last_error: string | null;
}

interface SignInFailuresTable {
  key: string;
  failures: number;
  window_started_at: Timestamp;
  locked_until: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

interface SigningKeysTable {
  kid: string;
  jwk: Json<unknown>;
  created_at: DefaultedTimestamp;
  signs_from: Timestamp;
}

interface TenantSettingChangesTable {
  seq: Generated<string>;
  tenant_id: string;
  account_id: string | null;
  changes: Json<unknown>;
  changed_at: DefaultedTimestamp;
}

interface IdentityTables {
  'identity.tenants': TenantsTable;
  'identity.accounts': AccountsTable;
  'identity.password_resets': PasswordResetsTable;
  'identity.sign_in_tickets': SignInTicketsTable;
  'identity.secrets': SecretsTable;
  'identity.oidc_payloads': OidcPayloadsTable;
  'identity.outbox': OutboxTable;
  'identity.sign_in_failures': SignInFailuresTable;
  'identity.signing_keys': SigningKeysTable;
  'identity.tenant_setting_changes': TenantSettingChangesTable;
  'identity.tenant_logos': TenantLogosTable;
}

/** The identity schema, typed. */
export type IdentityDb = Kysely<IdentityTables>;

/** The connection of `db` typed with the identity schema. */
export const identityDb = (db: Database): IdentityDb => db.typed<IdentityTables>();
