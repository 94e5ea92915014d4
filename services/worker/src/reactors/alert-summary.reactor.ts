import { sql } from 'kysely';
import type { Database } from '@renkei/db';
import { parseAlertEvent } from '@renkei/domain';
import { readStreamOrEmpty, type EventStore, type RecordedEvent } from '@renkei/event-store';
import type { Reactor } from '@renkei/projections';
import { jstDay } from '../japan-time.ts';
import {
  defineNotificationMailReactor,
  japaneseDate,
  mailText,
  morningHourJst,
  sendSummaries,
  type MailDelivery,
  type NotificationMailOptions,
} from '../notifications/notification-mail.ts';
import { migrateNotify } from '../notifications/notify.migrations.ts';

/**
 * The alerts summary mail (spec §3 `enabled_alerts_summary`, docs/decisions.md "Notification mails"):
 * one mail per person and morning listing the tenant's alerts raised, or updated with new institutions,
 * since the morning before. The reactor records each such event once; the loop sends the due summaries,
 * each claimed in the database before it leaves.
 */

const hourMs = 60 * 60 * 1000;

/** The morning (YYYY-MM-DD, Japan) whose summary tells an alert of `at`: from 07:00 JST, the next day's. */
export const summaryMorningOf = (at: Date): string => jstDay(new Date(at.getTime() + (24 - morningHourJst) * hourMs));

/** The last morning whose summary is due at `now`: today from 07:00 JST, yesterday until then. */
export const lastDueMorning = (now: Date): string => jstDay(new Date(now.getTime() - morningHourJst * hourMs));

/** Mornings further back are not sent any more (a worker down for days does not mail old news). */
const catchUpDays = 3;

/** How many of an update's institutions the alert's previous evaluation did not have. */
async function newInstitutionsOf(store: EventStore, event: RecordedEvent, ids: readonly string[]) {
  const stream = await readStreamOrEmpty(store, event.stream, event.metadata.tenant_id);
  let before: readonly string[] = [];
  for (const stored of stream) {
    if (stored.revision >= event.revision) break;
    const parsed = parseAlertEvent(stored);
    if (parsed.type !== 'AlertArchived') before = parsed.data.institutions.medical_institution_ids;
  }
  const known = new Set(before);
  return ids.filter((id) => !known.has(id)).length;
}

/**
 * Records the alert events of a batch. Only those that raised an alert or brought new institutions
 * (`new_count` > 0) make a summary; an update with none still gives the alert's latest figures.
 */
async function recordAlerts(db: Database, store: EventStore, events: readonly RecordedEvent[]) {
  await migrateNotify(db);
  for (const event of events) {
    const parsed = parseAlertEvent(event);
    if (parsed.type === 'AlertArchived') continue;
    const alert = parsed.data;
    const ids = alert.institutions.medical_institution_ids;
    const newCount = parsed.type === 'AlertRaised' ? ids.length : await newInstitutionsOf(store, event, ids);
    const tenantId = event.metadata.tenant_id;
    // An event the reactor sees after its morning's summary left (a slow batch near 07:00) goes in the
    // tenant's next summary not yet started rather than being lost.
    await sql`
      INSERT INTO notify.alert_items
        (event_id, tenant_id, day, alert_id, kind, name, condition_summary, alert_date, target_count, new_count, raised_at)
      VALUES (${event.id}, ${tenantId},
        GREATEST(${summaryMorningOf(event.created_at)}::date,
          (SELECT max(s.day) + 1 FROM notify.alert_summaries s WHERE s.tenant_id = ${tenantId})),
        ${alert.alert_id}, ${parsed.type === 'AlertRaised' ? 'raised' : 'updated'}, ${alert.name},
        ${alert.condition_summary}, ${alert.alert_date}::date, ${alert.target_count}, ${newCount}, ${event.created_at})
      ON CONFLICT (event_id) DO NOTHING`.execute(db.kysely);
  }
}

interface SummaryLine {
  alert_id: string;
  kind: 'raised' | 'updated';
  name: string;
  condition_summary: string;
  alert_date: string;
  target_count: number;
  new_count: number;
}

/** The morning's alerts of a tenant with something new, one line each with its latest figures that morning. */
async function linesOf(db: Database, tenantId: string, day: string): Promise<SummaryLine[]> {
  const { rows } = await sql<SummaryLine>`
    SELECT alert_id::text AS alert_id, kind, name, condition_summary, alert_date, target_count, new_count FROM (
      SELECT DISTINCT ON (alert_id) alert_id,
             CASE WHEN bool_or(kind = 'raised') OVER (PARTITION BY alert_id) THEN 'raised' ELSE 'updated' END AS kind,
             name, condition_summary, to_char(alert_date, 'YYYY-MM-DD') AS alert_date, target_count,
             sum(new_count) OVER (PARTITION BY alert_id)::int AS new_count, raised_at
        FROM notify.alert_items
       WHERE tenant_id = ${tenantId} AND day = ${day}::date
       ORDER BY alert_id, raised_at DESC, event_id DESC) latest
     WHERE new_count > 0
     ORDER BY alert_date DESC, name, alert_id`.execute(db.kysely);
  return rows;
}

function mailOf(username: string, day: string, lines: SummaryLine[], origin: string) {
  const month = (alertDate: string) => {
    const [y, m] = alertDate.split('-').map(Number);
    return `${y}年${m}月分`;
  };
  const text = mailText(
    username,
    [
      `前日の朝からの新しいアラート、または対象の医療機関が増えたアラートが${lines.length}件あります。`,
      '',
      ...lines.flatMap((l) => [
        `■ ${l.name}（${month(l.alert_date)}）${l.kind === 'raised' ? '【新着】' : '【対象追加】'}`,
        `  条件: ${l.condition_summary}`,
        `  対象: ${l.target_count}件${l.kind === 'updated' ? `（新たに${l.new_count}件）` : ''}`,
        `  ${origin}/app/alerts/${l.alert_id}`,
        '',
      ]),
      `アラート一覧: ${origin}/app/alerts`,
    ],
    origin,
  );
  return { subject: `【Renkei】${japaneseDate(day)}のアラート（${lines.length}件）`, text };
}

interface DueAlertSummary {
  recipient_id: string;
  tenant_id: string;
  day: string;
}

/** Sends every alerts summary due at `now` not claimed yet; answers how many mails left. */
export async function sendDueAlertSummaries(db: Database, options: MailDelivery & { now: Date }): Promise<number> {
  await migrateNotify(db);
  const last = lastDueMorning(options.now);
  // Every account of a tenant with alerts that morning gets a claim (skipped when it does not want the
  // mail): whether it wants it is read at sending time, as the reactions summary does.
  const mornings = sql`
    SELECT DISTINCT tenant_id, day FROM notify.alert_items
     WHERE new_count > 0 AND day <= ${last}::date AND day > ${last}::date - ${catchUpDays}::int`;
  // Without alerts in the window the round ends here, without reading identity's accounts.
  const { rows: any } = await sql`${mornings} LIMIT 1`.execute(db.kysely);
  if (any.length === 0) return 0;
  const due = await sql<DueAlertSummary>`
    SELECT a.id::text AS recipient_id, m.tenant_id::text AS tenant_id, to_char(m.day, 'YYYY-MM-DD') AS day
      FROM (${mornings}) m
      JOIN identity.accounts a ON a.tenant_id = m.tenant_id
     WHERE NOT EXISTS (SELECT 1 FROM notify.alert_summaries s WHERE s.recipient_id = a.id AND s.day = m.day)
     ORDER BY day, tenant_id, recipient_id
     LIMIT 500`.execute(db.kysely);
  return sendSummaries(db, options, due.rows, {
    table: 'alert_summaries',
    setting: 'enabled_alerts_summary',
    messageIdPrefix: 'alert-summary',
    compose: async (summary, to) =>
      mailOf(to.username, summary.day, await linesOf(db, summary.tenant_id, summary.day), options.origin),
  });
}

export function createAlertSummaryReactor(options: NotificationMailOptions = {}): Reactor {
  return defineNotificationMailReactor(
    {
      name: 'alert_summary',
      eventTypes: ['AlertRaised', 'AlertUpdated'],
      handle: (events, ctx) => recordAlerts(ctx.db, ctx.store, events),
      sendDue: sendDueAlertSummaries,
    },
    options,
  );
}
