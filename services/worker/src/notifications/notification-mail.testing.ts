import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { TestDatabase } from '@renkei/db';
import type { MailTransport } from '@renkei/mail';
import type { NotificationSetting } from './notification-mail.ts';

/**
 * Test helpers of the notification mails: identity's accounts table with the columns the mails read
 * (identity's migrations own the real one), and a transport that keeps the mails and can refuse one.
 */

export interface TestAccount {
  id: string;
  tenant_id: string;
  username: string;
  email: string | null;
  active?: boolean;
  enabled_notification?: boolean;
  enabled_communication_reactions_summary?: boolean;
  enabled_alerts_summary?: boolean;
  enabled_medical_institution_report_alert?: boolean;
}

export async function createTestAccounts(db: TestDatabase, accounts: readonly TestAccount[]) {
  await sql`CREATE SCHEMA IF NOT EXISTS identity`.execute(db.kysely);
  await sql`CREATE TABLE IF NOT EXISTS identity.accounts (
    id uuid PRIMARY KEY, tenant_id uuid NOT NULL, username text NOT NULL, email text,
    active boolean NOT NULL DEFAULT true,
    enabled_notification boolean NOT NULL DEFAULT true,
    enabled_communication_reactions_summary boolean NOT NULL DEFAULT true,
    enabled_alerts_summary boolean NOT NULL DEFAULT true,
    enabled_medical_institution_report_alert boolean NOT NULL DEFAULT true)`.execute(db.kysely);
  for (const a of accounts)
    await sql`INSERT INTO identity.accounts (id, tenant_id, username, email, active, enabled_notification,
        enabled_communication_reactions_summary, enabled_alerts_summary, enabled_medical_institution_report_alert)
      VALUES (${a.id}, ${a.tenant_id}, ${a.username}, ${a.email}, ${a.active ?? true}, ${a.enabled_notification ?? true},
        ${a.enabled_communication_reactions_summary ?? true}, ${a.enabled_alerts_summary ?? true},
        ${a.enabled_medical_institution_report_alert ?? true})`.execute(db.kysely);
}

/**
 * A tenant's accounts in every state a mail looks at (one wants `setting`, one switched it off, one
 * switched all mails off, one inactive, one without an email) and one wanting account of another tenant.
 */
export function castOf(setting: NotificationSetting) {
  const tenantId = randomUUID();
  const otherTenantId = randomUUID();
  const ids = {
    wants: randomUUID(),
    settingOff: randomUUID(),
    masterOff: randomUUID(),
    inactive: randomUUID(),
    withoutEmail: randomUUID(),
    otherTenant: randomUUID(),
  };
  const accounts: TestAccount[] = [
    { id: ids.wants, tenant_id: tenantId, username: '山田 花子', email: 'hanako@sakura.example' },
    {
      id: ids.settingOff,
      tenant_id: tenantId,
      username: '鈴木 一郎',
      email: 'ichiro@sakura.example',
      [setting]: false,
    },
    {
      id: ids.masterOff,
      tenant_id: tenantId,
      username: '佐藤 次郎',
      email: 'jiro@sakura.example',
      enabled_notification: false,
    },
    { id: ids.inactive, tenant_id: tenantId, username: '田中 三郎', email: 'saburo@sakura.example', active: false },
    { id: ids.withoutEmail, tenant_id: tenantId, username: '高橋 四郎', email: null },
    { id: ids.otherTenant, tenant_id: otherTenantId, username: '伊藤 五郎', email: 'goro@ume.example' },
  ];
  return { tenantId, otherTenantId, ids, accounts };
}

export interface CaughtMail {
  to: { name: string; address: string };
  subject: string;
  text: string;
  messageId: string;
}

export function mailCatcher() {
  const mails: CaughtMail[] = [];
  let failNext = false;
  const transport = {
    sendMail: async (mail: CaughtMail) => {
      if (failNext) {
        failNext = false;
        throw new Error('SMTP 451 try again later');
      }
      mails.push(mail);
      return {};
    },
    close: () => undefined,
  } as unknown as MailTransport;
  return { mails, transport, failOnce: () => (failNext = true) };
}
