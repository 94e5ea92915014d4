import { sql } from 'kysely';
import type { Database } from '@renkei/db';
import type { RecordedEvent } from '@renkei/event-store';
import { createMailTransport, type MailTransport } from '@renkei/mail';
import { defineReactor, repeatUntilAborted, type Reactor, type ReactorContext } from '@renkei/projections';

/**
 * What the notification mails share (docs/decisions.md "Notification mails"): the account lookup, the
 * claim-then-send step that makes each mail leave at most once, and the reactor with its sending loop.
 */

export interface NotificationMailOptions {
  /** The public https origin of the links in the mail (PUBLIC_ORIGIN). */
  publicOrigin?: string;
  /** The SMTP transport; default SMTP_URL or the local catcher, as campaign mails. */
  transport?: () => MailTransport;
  /** Now (tests move it). */
  clock?: () => Date;
  /** How often due mails are looked for (default one minute). */
  intervalMs?: number;
  /** Sender of the mails (MAIL_FROM, as identity's mails). */
  from?: string;
}

/** The per-account settings of spec §3, each under the master switch `enabled_notification`. */
export type NotificationSetting =
  'enabled_communication_reactions_summary' | 'enabled_alerts_summary' | 'enabled_medical_institution_report_alert';

export interface Recipient {
  username: string;
  email: string | null;
  wants: boolean;
}

/**
 * The account's address and whether it wants this mail now: active, the master switch and the setting
 * on, and of `tenantId` when given (an account of another tenant never wants it). Accounts are
 * identity's, in the same database in every deployment (as the institution master is for identity).
 */
export async function recipientOf(
  db: Database,
  accountId: string,
  setting: NotificationSetting,
  tenantId?: string,
): Promise<Recipient | null> {
  const sameTenant = tenantId === undefined ? sql`true` : sql`tenant_id = ${tenantId}`;
  const { rows } = await sql<Recipient>`
    SELECT username, email, (active AND enabled_notification AND ${sql.ref(setting)} AND ${sameTenant}) AS wants
      FROM identity.accounts WHERE id = ${accountId}`.execute(db.kysely);
  return rows[0] ?? null;
}

/** One mail's claim in the database: taken before it leaves, freed on an SMTP refusal, marked when sent. */
export interface MailClaim {
  /** Records the claim with this status; false when another round holds it already. */
  take(status: 'sending' | 'skipped'): Promise<boolean>;
  release(): Promise<void>;
  sent(): Promise<void>;
}

export interface MailDelivery {
  transport: MailTransport;
  from: string;
  origin: string;
}

/** One mail to send: its claim, its recipient as read now, and its content once claimed. */
export interface ClaimedMail {
  claim: MailClaim;
  recipient: Recipient | null;
  compose(recipient: Recipient & { email: string }): Promise<{ subject: string; text: string }>;
  messageId: string;
}

/**
 * Sends each mail at most once: claims it (as skipped when the account does not want it or has no
 * address), then sends. A crash between claim and send loses that mail rather than sending it twice;
 * an SMTP refusal frees the claim and rethrows, so the next round tries again. Answers how many left.
 */
export async function sendClaimed<T>(
  due: readonly T[],
  delivery: MailDelivery,
  mailOf: (row: T) => Promise<ClaimedMail>,
): Promise<number> {
  let sent = 0;
  for (const row of due) {
    const { claim, recipient, compose, messageId } = await mailOf(row);
    const to = recipient?.wants && recipient.email ? { ...recipient, email: recipient.email } : null;
    if (!(await claim.take(to ? 'sending' : 'skipped')) || !to) continue;
    try {
      const mail = await compose(to);
      await delivery.transport.sendMail({
        from: delivery.from,
        to: { name: to.username, address: to.email },
        subject: mail.subject,
        text: mail.text,
        messageId,
      });
    } catch (error) {
      await claim.release();
      throw error;
    }
    await claim.sent();
    sent++;
  }
  return sent;
}

/**
 * The claim of one person's summary of a day, a row keyed by both (`notify.reaction_digests`,
 * `notify.alert_summaries`, the latter with the tenant): inserted to take it, deleted to free it.
 */
function summaryClaim(
  db: Database,
  table: 'reaction_digests' | 'alert_summaries',
  key: { recipientId: string; day: string; tenantId?: string },
): MailClaim {
  const where = sql`recipient_id = ${key.recipientId} AND day = ${key.day}::date`;
  const target = sql.table(`notify.${table}`);
  return {
    take: async (status) =>
      (
        await (
          key.tenantId === undefined
            ? sql`INSERT INTO ${target} (recipient_id, day, status) VALUES (${key.recipientId}, ${key.day}::date, ${status})
                ON CONFLICT DO NOTHING RETURNING recipient_id`
            : sql`INSERT INTO ${target} (recipient_id, day, tenant_id, status)
                VALUES (${key.recipientId}, ${key.day}::date, ${key.tenantId}, ${status})
                ON CONFLICT DO NOTHING RETURNING recipient_id`
        ).execute(db.kysely)
      ).rows.length > 0,
    release: async () => void (await sql`DELETE FROM ${target} WHERE ${where}`.execute(db.kysely)),
    sent: async () =>
      void (await sql`UPDATE ${target} SET status = 'sent', sent_at = now() WHERE ${where}`.execute(db.kysely)),
  };
}

/** A person's summary of a day that is due (`tenant_id` where the claim table keeps it). */
export interface DueSummary {
  recipient_id: string;
  day: string;
  tenant_id?: string;
}

/** Sends due summaries of one kind, each claimed in its table, to those who want them at sending time. */
export function sendSummaries<T extends DueSummary>(
  db: Database,
  delivery: MailDelivery,
  due: readonly T[],
  kind: {
    table: 'reaction_digests' | 'alert_summaries';
    setting: NotificationSetting;
    /** The Message-ID's first word, before the person and the day. */
    messageIdPrefix: string;
    compose(summary: T, recipient: Recipient): Promise<{ subject: string; text: string }>;
  },
): Promise<number> {
  return sendClaimed(due, delivery, async (summary) => ({
    claim: summaryClaim(db, kind.table, {
      recipientId: summary.recipient_id,
      day: summary.day,
      ...(summary.tenant_id === undefined ? {} : { tenantId: summary.tenant_id }),
    }),
    recipient: await recipientOf(db, summary.recipient_id, kind.setting, summary.tenant_id),
    compose: (to) => kind.compose(summary, to),
    messageId: `<${kind.messageIdPrefix}-${summary.recipient_id}-${summary.day}@renkei>`,
  }));
}

/** Summaries leave from this hour (Japan time): read with the morning's mail. */
export const morningHourJst = 7;

/** A day (YYYY-MM-DD) as Japanese write it: 2026年11月24日. */
export function japaneseDate(day: string): string {
  const [y, m, d] = day.split('-').map(Number);
  return `${y}年${m}月${d}日`;
}

/** A notification mail's text: the greeting, the lines, and the closing every such mail has. */
export const mailText = (username: string, lines: readonly string[], origin: string): string =>
  [
    `${username}さん`,
    '',
    ...lines,
    '',
    'このメールはRenkeiから自動で送信しています。',
    `通知の設定は個人設定（${origin}/app/profile）で変更できます。`,
  ].join('\n');

/**
 * A reactor that records what to tell from its events (`handle`, idempotent) and, in a loop, sends
 * what is due (`sendDue`, answering how many mails left). It starts at the store's head: mails are
 * never sent about what happened before its first start.
 */
export function defineNotificationMailReactor(
  reactor: {
    name: string;
    eventTypes: readonly string[];
    handle(events: RecordedEvent[], ctx: ReactorContext): Promise<void>;
    sendDue(db: Database, options: MailDelivery & { now: Date }): Promise<number>;
  },
  options: NotificationMailOptions,
): Reactor {
  let transport: MailTransport | undefined;
  const mailer = () =>
    (transport ??= options.transport
      ? options.transport()
      : createMailTransport({
          smtpUrl: process.env.SMTP_URL,
          pool: true,
          fallbackPort: Number(process.env.SMTP_PORT ?? 2525),
        }));
  const origin = () =>
    (options.publicOrigin ?? process.env.PUBLIC_ORIGIN ?? 'https://localhost:3000').replace(/\/$/, '');
  const from = options.from ?? process.env.MAIL_FROM ?? 'Renkei <no-reply@renkei.local>';
  return defineReactor({
    name: reactor.name,
    eventTypes: reactor.eventTypes,
    startAt: 'head',
    handle: reactor.handle,
    async background(ctx) {
      await repeatUntilAborted(
        ctx.signal,
        options.intervalMs ?? 60_000,
        () =>
          reactor.sendDue(ctx.db, {
            now: options.clock?.() ?? new Date(),
            transport: mailer(),
            origin: origin(),
            from,
          }),
        (error) => ctx.logger?.warn({ err: error }, `${reactor.name}: sending failed, will retry`),
      );
      transport?.close();
    },
  });
}
