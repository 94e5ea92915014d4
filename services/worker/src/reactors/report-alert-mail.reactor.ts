import { sql } from 'kysely';
import type { Database } from '@renkei/db';
import { parseReportDefinitionEvent, reportDefinitionAggregate, ReportAlertRaised } from '@renkei/domain';
import { readStreamOrEmpty, streamId, type EventStore, type RecordedEvent } from '@renkei/event-store';
import type { Reactor } from '@renkei/projections';
import {
  defineNotificationMailReactor,
  japaneseDate,
  mailText,
  recipientOf,
  sendClaimed,
  type MailClaim,
  type MailDelivery,
  type NotificationMailOptions,
} from '../notifications/notification-mail.ts';
import { migrateNotify } from '../notifications/notify.migrations.ts';

/**
 * The report alert mail (spec §3 `enabled_medical_institution_report_alert`, docs/decisions.md
 * "Notification mails"): when an institution report's alert fires, each account its alert settings
 * name gets one mail, once per definition, account and alert day, within the minute.
 */

/** The definition's name and whom it notified when the alert fired (its stream up to the alert). */
async function definitionAt(store: EventStore, event: RecordedEvent, definitionId: string) {
  const stream = await readStreamOrEmpty(
    store,
    streamId(reportDefinitionAggregate, definitionId),
    event.metadata.tenant_id,
  );
  let definition = null as { name: string; notifyUserIds: readonly string[] } | null;
  for (const stored of stream) {
    if (stored.revision > event.revision) break;
    const parsed = parseReportDefinitionEvent(stored);
    switch (parsed.type) {
      case 'ReportDefinitionCreated':
        // A new definition alerts no one: its alert settings are a later write.
        definition = { name: parsed.data.name, notifyUserIds: [] };
        break;
      case 'ReportDefinitionUpdated':
        if (definition) definition = { ...definition, name: parsed.data.name };
        break;
      case 'ReportAlertSettingsChanged':
        if (definition) definition = { ...definition, notifyUserIds: parsed.data.alert_settings.notify_user_ids };
        break;
      case 'ReportDefinitionDeleted':
        definition = null;
        break;
      case 'ReportAlertRaised':
        break;
      default: {
        const never: never = parsed;
        throw new Error(`unexpected ${(never as { type: string }).type}`);
      }
    }
  }
  return definition;
}

/** Records one pending mail per named account of each alert in the batch (a repeat inserts nothing). */
async function recordReportAlerts(db: Database, store: EventStore, events: readonly RecordedEvent[]) {
  await migrateNotify(db);
  for (const event of events) {
    const alert = ReportAlertRaised.parse(event.data);
    const definition = await definitionAt(store, event, alert.report_definition_id);
    if (!definition) continue;
    for (const recipientId of new Set(definition.notifyUserIds)) {
      await sql`
        INSERT INTO notify.report_alert_mails (report_definition_id, recipient_id, alert_date, tenant_id, report_name)
        VALUES (${alert.report_definition_id}, ${recipientId}, ${alert.alert_date}::date, ${event.metadata.tenant_id},
          ${definition.name})
        ON CONFLICT DO NOTHING`.execute(db.kysely);
    }
  }
}

interface PendingMail {
  report_definition_id: string;
  recipient_id: string;
  alert_date: string;
  tenant_id: string;
  report_name: string;
}

function mailOf(username: string, pending: PendingMail, origin: string) {
  const date = japaneseDate(pending.alert_date);
  const text = mailText(
    username,
    [
      `医療機関レポート「${pending.report_name}」で、${date}にアラート条件に合う医療機関がありました。`,
      '',
      `レポート: ${origin}/app/medical_institutions_reports/${pending.report_definition_id}`,
      '',
      'このレポートのアラートの通知先にあなたが設定されているため、お送りしています。',
    ],
    origin,
  );
  return { subject: `【Renkei】医療機関レポート「${pending.report_name}」のアラート（${date}）`, text };
}

/** Sends every pending report alert mail; answers how many left. */
export async function sendPendingReportAlerts(db: Database, options: MailDelivery): Promise<number> {
  await migrateNotify(db);
  const pending = await sql<PendingMail>`
    SELECT report_definition_id::text AS report_definition_id, recipient_id::text AS recipient_id,
           to_char(alert_date, 'YYYY-MM-DD') AS alert_date, tenant_id::text AS tenant_id, report_name
      FROM notify.report_alert_mails
     WHERE status = 'pending'
     ORDER BY recorded_at, report_definition_id, recipient_id
     LIMIT 500`.execute(db.kysely);
  return sendClaimed(pending.rows, options, async (mail) => {
    const key = sql`report_definition_id = ${mail.report_definition_id} AND recipient_id = ${mail.recipient_id}
      AND alert_date = ${mail.alert_date}::date`;
    const claim: MailClaim = {
      take: async (status) =>
        (
          await sql`UPDATE notify.report_alert_mails SET status = ${status}
                     WHERE ${key} AND status = 'pending' RETURNING recipient_id`.execute(db.kysely)
        ).rows.length > 0,
      release: async () =>
        void (await sql`UPDATE notify.report_alert_mails SET status = 'pending' WHERE ${key}`.execute(db.kysely)),
      sent: async () =>
        void (await sql`UPDATE notify.report_alert_mails SET status = 'sent', sent_at = now() WHERE ${key}`.execute(
          db.kysely,
        )),
    };
    return {
      claim,
      recipient: await recipientOf(db, mail.recipient_id, 'enabled_medical_institution_report_alert', mail.tenant_id),
      compose: async (to) => mailOf(to.username, mail, options.origin),
      messageId: `<report-alert-${mail.report_definition_id}-${mail.recipient_id}-${mail.alert_date}@renkei>`,
    };
  });
}

export function createReportAlertMailReactor(options: NotificationMailOptions = {}): Reactor {
  return defineNotificationMailReactor(
    {
      name: 'report_alert_mail',
      eventTypes: ['ReportAlertRaised'],
      handle: (events, ctx) => recordReportAlerts(ctx.db, ctx.store, events),
      sendDue: sendPendingReportAlerts,
    },
    options,
  );
}
