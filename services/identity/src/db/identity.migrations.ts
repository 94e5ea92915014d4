import { sql, type Kysely } from 'kysely';
import { migrateModule, type Database, type ModuleMigrations } from '@renkei/db';

export const identityMigrations: ModuleMigrations = {
  '0001_identity': {
    async up(db: Kysely<any>) {
      await sql`CREATE SCHEMA IF NOT EXISTS identity`.execute(db);
      await sql`
        CREATE TABLE identity.tenants (
          id uuid PRIMARY KEY,
          slug text NOT NULL UNIQUE,
          name text NOT NULL,
          logo text,
          plan text NOT NULL,
          feature_overrides jsonb NOT NULL DEFAULT '{}',
          max_account_count integer,
          max_tag_count integer,
          ip_allow_list jsonb NOT NULL DEFAULT '[]',
          medical_institution_id text,
          prefecture text,
          latitude double precision,
          longitude double precision,
          demo boolean NOT NULL DEFAULT false,
          enabled_phase boolean NOT NULL DEFAULT false,
          enabled_mc_map boolean NOT NULL DEFAULT false,
          enabled_op_optimizer boolean NOT NULL DEFAULT false,
          enabled_additional_referral_data boolean NOT NULL DEFAULT false,
          enabled_medical_institution_ai boolean NOT NULL DEFAULT false,
          enabled_audio_transcription boolean NOT NULL DEFAULT false,
          max_referral_hospital_admission_period integer,
          is_group boolean NOT NULL DEFAULT false,
          group_medical_institutions jsonb NOT NULL DEFAULT '[]',
          data_availabilities jsonb NOT NULL DEFAULT '[]',
          email_sender_allowed_addresses jsonb NOT NULL DEFAULT '[]',
          created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now()
        )`.execute(db);
      await sql`
        CREATE TABLE identity.accounts (
          id uuid PRIMARY KEY,
          tenant_id uuid NOT NULL REFERENCES identity.tenants(id),
          username text NOT NULL,
          email text,
          login_name text,
          role text NOT NULL CHECK (role IN ('owner', 'member')),
          password_hash text NOT NULL,
          is_confirmed boolean NOT NULL DEFAULT false,
          enabled_crm boolean NOT NULL DEFAULT true,
          enabled_mc_map boolean NOT NULL DEFAULT false,
          cs_account boolean NOT NULL DEFAULT false,
          active boolean NOT NULL DEFAULT true,
          last_login_date timestamptz,
          own_department_id text,
          default_facility_type_ids jsonb NOT NULL DEFAULT '[]',
          enabled_notification boolean NOT NULL DEFAULT true,
          enabled_communication_reactions_summary boolean NOT NULL DEFAULT true,
          enabled_alerts_summary boolean NOT NULL DEFAULT true,
          enabled_medical_institution_report_alert boolean NOT NULL DEFAULT true,
          created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now(),
          CHECK (email IS NOT NULL OR login_name IS NOT NULL)
        )`.execute(db);
      // An email or a login name identifies exactly one account across all tenants (docs/decisions.md).
      await sql`CREATE UNIQUE INDEX accounts_email_key ON identity.accounts (lower(email)) WHERE email IS NOT NULL`.execute(
        db,
      );
      await sql`CREATE UNIQUE INDEX accounts_login_name_key ON identity.accounts (lower(login_name)) WHERE login_name IS NOT NULL`.execute(
        db,
      );
      await sql`CREATE INDEX accounts_tenant_idx ON identity.accounts (tenant_id)`.execute(db);
      await sql`
        CREATE TABLE identity.password_resets (
          token_hash text PRIMARY KEY,
          account_id uuid NOT NULL REFERENCES identity.accounts(id),
          expires_at timestamptz NOT NULL,
          used_at timestamptz,
          created_at timestamptz NOT NULL DEFAULT now()
        )`.execute(db);
      await sql`
        CREATE TABLE identity.secrets (
          name text PRIMARY KEY,
          value jsonb NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now()
        )`.execute(db);
      await sql`
        CREATE TABLE identity.oidc_payloads (
          id text NOT NULL,
          type text NOT NULL,
          payload jsonb NOT NULL,
          grant_id text,
          user_code text,
          uid text,
          expires_at timestamptz,
          consumed_at timestamptz,
          PRIMARY KEY (id, type)
        )`.execute(db);
      await sql`CREATE INDEX oidc_payloads_grant_idx ON identity.oidc_payloads (grant_id)`.execute(db);
      await sql`CREATE INDEX oidc_payloads_uid_idx ON identity.oidc_payloads (uid)`.execute(db);
      await sql`CREATE INDEX oidc_payloads_user_code_idx ON identity.oidc_payloads (user_code)`.execute(db);
      await sql`CREATE INDEX oidc_payloads_expires_idx ON identity.oidc_payloads (expires_at)`.execute(db);
    },
  },
  '0002_outbox': {
    async up(db: Kysely<any>) {
      // Events written in the same transaction as the row they describe; the relay appends them to the
      // event store (id = the event's id, so a repeated append is a no-op) and marks them published.
      await sql`
        CREATE TABLE identity.outbox (
          seq bigserial PRIMARY KEY,
          id uuid NOT NULL UNIQUE,
          stream text NOT NULL,
          type text NOT NULL,
          data jsonb NOT NULL,
          metadata jsonb NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now(),
          published_at timestamptz,
          position text,
          attempts integer NOT NULL DEFAULT 0,
          last_error text
        )`.execute(db);
      await sql`CREATE INDEX outbox_pending_idx ON identity.outbox (seq) WHERE published_at IS NULL`.execute(db);
    },
  },
  '0003_sign_in_lockout': {
    async up(db: Kysely<any>) {
      // Keyed by account (or, for a login that matches no account, by a hash of it) so unknown logins
      // lock exactly like real ones and the lock reveals nothing.
      await sql`
        CREATE TABLE identity.sign_in_failures (
          key text PRIMARY KEY,
          failures integer NOT NULL,
          window_started_at timestamptz NOT NULL,
          locked_until timestamptz
        )`.execute(db);
    },
  },
  '0004_signing_keys': {
    async up(db: Kysely<any>) {
      await sql`
        CREATE TABLE identity.signing_keys (
          kid text PRIMARY KEY,
          jwk jsonb NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now(),
          signs_from timestamptz NOT NULL
        )`.execute(db);
      // The key of installs before rotation existed keeps signing until the first rotation.
      await sql`
        INSERT INTO identity.signing_keys (kid, jwk, created_at, signs_from)
        SELECT k->>'kid', k, s.created_at, s.created_at - (ord * interval '1 millisecond')
          FROM identity.secrets s, jsonb_array_elements(s.value->'keys') WITH ORDINALITY AS t(k, ord)
         WHERE s.name = 'oidc_jwks'`.execute(db);
      await sql`DELETE FROM identity.secrets WHERE name = 'oidc_jwks'`.execute(db);
    },
  },
  '0005_invitations': {
    async up(db: Kysely<any>) {
      // A sign-up link is a password link with another lifetime and another page: one table, one rule
      // (only the token's hash, used once).
      await sql`ALTER TABLE identity.password_resets ADD COLUMN purpose text NOT NULL DEFAULT 'reset'`.execute(db);
    },
  },
  '0006_tenant_setting_changes': {
    async up(db: Kysely<any>) {
      // What changed in a tenant's settings, by whom: written in the transaction of the change.
      await sql`
        CREATE TABLE identity.tenant_setting_changes (
          seq bigserial PRIMARY KEY,
          tenant_id uuid NOT NULL REFERENCES identity.tenants(id),
          account_id uuid,
          changes jsonb NOT NULL,
          changed_at timestamptz NOT NULL DEFAULT now()
        )`.execute(db);
      await sql`CREATE INDEX tenant_setting_changes_tenant_idx ON identity.tenant_setting_changes (tenant_id, seq)`.execute(
        db,
      );
    },
  },
  '0007_tenant_logos': {
    async up(db: Kysely<any>) {
      // The image lives apart from the tenant row, which every authenticated call reads; `tenants.logo`
      // keeps only its version (a hash), so the URL changes when the image does.
      await sql`
        CREATE TABLE identity.tenant_logos (
          tenant_id uuid PRIMARY KEY REFERENCES identity.tenants(id),
          content_type text NOT NULL,
          data bytea NOT NULL,
          updated_at timestamptz NOT NULL DEFAULT now()
        )`.execute(db);
    },
  },
  '0008_sign_in_tickets': {
    async up(db: Kysely<any>) {
      // The sign-up page hands the browser a two-minute ticket that finishes the next sign-in without
      // the password (oidc/sign-in-ticket.ts). Not a password link: its own table, so no query of
      // password_resets can ever take one for a link.
      await sql`
        CREATE TABLE identity.sign_in_tickets (
          token_hash text PRIMARY KEY,
          account_id uuid NOT NULL REFERENCES identity.accounts(id) ON DELETE CASCADE,
          expires_at timestamptz NOT NULL,
          used_at timestamptz,
          created_at timestamptz NOT NULL DEFAULT now()
        )`.execute(db);
      await sql`CREATE INDEX sign_in_tickets_expires_idx ON identity.sign_in_tickets (expires_at)`.execute(db);
    },
  },
};

/** Creates or upgrades identity's tables; idempotent, so the ops CLI and the seed may call it first. */
export async function migrateIdentity(deps: { db: Database }): Promise<void> {
  await migrateModule(deps.db.kysely, 'identity', identityMigrations);
}
