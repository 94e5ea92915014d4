import { sql, type Kysely } from 'kysely';
import { migrateModuleOnce, type Database } from '@renkei/db';

/** The worker's notification mails (schema `notify`): one migration set, whatever reactor runs first. */
const migrations = {
  '0001_reaction_digests': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE SCHEMA IF NOT EXISTS notify`.execute(db);
      // One row per reaction (its event id): a batch delivered again inserts nothing.
      await sql`
        CREATE TABLE notify.reactions (
          event_id uuid PRIMARY KEY,
          tenant_id uuid NOT NULL,
          recipient_id uuid NOT NULL,
          day date NOT NULL,
          kind text NOT NULL,
          actor_id uuid NOT NULL,
          communication_id uuid NOT NULL,
          medical_institution_id uuid NOT NULL,
          comment text,
          reacted_at timestamptz NOT NULL
        )`.execute(db);
      await sql`CREATE INDEX reactions_day_idx ON notify.reactions (day, recipient_id)`.execute(db);
      // The claim of one summary: inserted before the mail leaves, so it leaves at most once.
      await sql`
        CREATE TABLE notify.reaction_digests (
          recipient_id uuid NOT NULL,
          day date NOT NULL,
          status text NOT NULL,
          claimed_at timestamptz NOT NULL DEFAULT now(),
          sent_at timestamptz,
          PRIMARY KEY (recipient_id, day)
        )`.execute(db);
    },
  },
  '0002_alert_mails': {
    async up(db: Kysely<unknown>) {
      // One row per alert event worth telling (raised, or updated with new institutions), under the
      // morning (`day`) whose summary carries it; a batch delivered again inserts nothing.
      await sql`
        CREATE TABLE notify.alert_items (
          event_id uuid PRIMARY KEY,
          tenant_id uuid NOT NULL,
          day date NOT NULL,
          alert_id uuid NOT NULL,
          kind text NOT NULL,
          name text NOT NULL,
          condition_summary text NOT NULL,
          alert_date date NOT NULL,
          target_count integer NOT NULL,
          new_count integer NOT NULL,
          raised_at timestamptz NOT NULL
        )`.execute(db);
      await sql`CREATE INDEX alert_items_day_idx ON notify.alert_items (day, tenant_id)`.execute(db);
      // The claim of one person's summary of a morning, as notify.reaction_digests.
      await sql`
        CREATE TABLE notify.alert_summaries (
          recipient_id uuid NOT NULL,
          day date NOT NULL,
          tenant_id uuid NOT NULL,
          status text NOT NULL,
          claimed_at timestamptz NOT NULL DEFAULT now(),
          sent_at timestamptz,
          PRIMARY KEY (recipient_id, day)
        )`.execute(db);
      await sql`CREATE INDEX alert_summaries_tenant_idx ON notify.alert_summaries (tenant_id, day)`.execute(db);
      // One mail per report definition, named account and alert day: pending until a round claims it.
      await sql`
        CREATE TABLE notify.report_alert_mails (
          report_definition_id uuid NOT NULL,
          recipient_id uuid NOT NULL,
          alert_date date NOT NULL,
          tenant_id uuid NOT NULL,
          report_name text NOT NULL,
          status text NOT NULL DEFAULT 'pending',
          recorded_at timestamptz NOT NULL DEFAULT now(),
          sent_at timestamptz,
          PRIMARY KEY (report_definition_id, recipient_id, alert_date)
        )`.execute(db);
      await sql`CREATE INDEX report_alert_mails_pending_idx ON notify.report_alert_mails (recorded_at)
        WHERE status = 'pending'`.execute(db);
    },
  },
};

export const migrateNotify = (db: Database) => migrateModuleOnce(db, 'notify', migrations);
