import { sql, type Kysely } from 'kysely';
import { migrateModuleOnce, type Database } from '@renkei/db';
import { communicationAggregate, parseCommunicationEvent } from '@renkei/domain';
import { readStreamOrEmpty, streamId, type EventStore, type RecordedEvent } from '@renkei/event-store';
import { createMailTransport, type MailTransport } from '@renkei/mail';
import { defineReactor, repeatUntilAborted, type Reactor } from '@renkei/projections';
import { jstDay } from '../japan-time.ts';

/**
 * The daily summary mail of reactions (spec §3 notification settings, `enabled_communication_reactions_summary`):
 * the comments and likes others left on my communications yesterday (Japan time), one mail per person
 * and day, sent in the morning. The reactor records each reaction once (keyed by its event id); the
 * background loop sends the due summaries, each claimed in the database before it is sent, so no
 * restart, second worker or repeated batch sends it twice.
 */

export interface ReactionDigestOptions {
  /** The public https origin of the link in the mail (PUBLIC_ORIGIN). */
  publicOrigin?: string;
  /** The SMTP transport; default SMTP_URL or the local catcher, as campaign mails. */
  transport?: () => MailTransport;
  /** Now (tests move it). */
  clock?: () => Date;
  /** How often due summaries are looked for (default one minute). */
  intervalMs?: number;
  /** Sender of the summary (MAIL_FROM, as identity's mails). */
  from?: string;
}

/** Summaries of a day leave from this hour (Japan time) of the next day: read with the morning's mail. */
const digestHourJst = 7;

/** The date (YYYY-MM-DD) in Japan of an instant. */

/** The last day whose summary is due at `now`: yesterday from 07:00 JST, the day before until then. */
export function lastDueDay(now: Date): string {
  return jstDay(new Date(now.getTime() - (24 + digestHourJst) * 60 * 60 * 1000));
}

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
};

const migrate = (db: Database) => migrateModuleOnce(db, 'notify', migrations);

/** Whose communication it is now: the staff member of its last save (created or edited). */
async function ownerOf(store: EventStore, tenantId: string, communicationId: string) {
  const events = await readStreamOrEmpty(store, streamId(communicationAggregate, communicationId), tenantId);
  let owner: { userId: string; institutionId: string } | null = null;
  for (const event of events) {
    const parsed = parseCommunicationEvent(event);
    if (
      parsed.type === 'CommunicationCreated' ||
      parsed.type === 'CommunicationImportAdopted' ||
      parsed.type === 'CommunicationUpdated'
    ) {
      owner = { userId: parsed.data.user_id, institutionId: parsed.data.medical_institution_id };
    } else if (parsed.type === 'CommunicationDeleted') {
      owner = null;
    }
  }
  return owner;
}

/** Records the reactions of a batch (those of others on someone's communication). */
export async function recordReactions(db: Database, store: EventStore, events: readonly RecordedEvent[]) {
  await migrate(db);
  for (const event of events) {
    const parsed = parseCommunicationEvent(event);
    if (parsed.type !== 'CommunicationCommentAdded' && parsed.type !== 'CommunicationLiked') continue;
    const tenantId = event.metadata.tenant_id;
    const owner = await ownerOf(store, tenantId, parsed.data.communication_id);
    // A reaction to one's own record, or to one deleted since, tells no one anything.
    if (!owner || owner.userId === parsed.data.user_id) continue;
    const comment = parsed.type === 'CommunicationCommentAdded' ? parsed.data.comment : null;
    await sql`
      INSERT INTO notify.reactions
        (event_id, tenant_id, recipient_id, day, kind, actor_id, communication_id, medical_institution_id, comment, reacted_at)
      VALUES (${event.id}, ${tenantId}, ${owner.userId}, ${jstDay(event.created_at)}::date,
        ${parsed.type === 'CommunicationLiked' ? 'like' : 'comment'}, ${parsed.data.user_id},
        ${parsed.data.communication_id}, ${owner.institutionId}, ${comment}, ${event.created_at})
      ON CONFLICT (event_id) DO NOTHING`.execute(db.kysely);
  }
}

interface DueDigest {
  recipient_id: string;
  day: string;
}

interface Recipient {
  username: string;
  email: string | null;
  wants: boolean;
}

/**
 * The account's address and whether it wants the summary. Accounts are identity's, in the same
 * database in every deployment (as the institution master is for identity).
 */
async function recipientOf(db: Database, accountId: string): Promise<Recipient | null> {
  const { rows } = await sql<Recipient>`
    SELECT username, email,
           (active AND enabled_notification AND enabled_communication_reactions_summary) AS wants
      FROM identity.accounts WHERE id = ${accountId}`.execute(db.kysely);
  return rows[0] ?? null;
}

function mailOf(recipient: Recipient, day: string, items: DigestItem[], origin: string) {
  const comments = items.filter((i) => i.kind === 'comment');
  const likes = items.filter((i) => i.kind === 'like');
  const [y, m, d] = day.split('-').map(Number);
  const date = `${y}年${m}月${d}日`;
  const line = (i: DigestItem) =>
    i.kind === 'comment'
      ? `・${i.actor}さんがコメントしました（${i.institution}）\n  「${i.comment}」`
      : `・${i.actor}さんがいいねしました（${i.institution}）`;
  const text = [
    `${recipient.username}さん`,
    '',
    `${date}、あなたの活動記録に${comments.length ? `コメント${comments.length}件` : ''}${comments.length && likes.length ? '、' : ''}${likes.length ? `いいね${likes.length}件` : ''}がありました。`,
    '',
    ...items.map(line),
    '',
    `活動記録: ${origin}/app/communications`,
    '',
    'このメールはRenkeiから自動で送信しています。',
    `通知の設定は個人設定（${origin}/app/profile）で変更できます。`,
  ].join('\n');
  return { subject: `【Renkei】${date}の活動記録へのリアクション`, text };
}

interface DigestItem {
  kind: 'comment' | 'like';
  actor: string;
  institution: string;
  comment: string | null;
}

async function itemsOf(db: Database, digest: DueDigest): Promise<DigestItem[]> {
  const { rows: master } = await sql<{ present: boolean }>`
    SELECT to_regclass('ref.medical_institutions') IS NOT NULL AS present`.execute(db.kysely);
  const institution = master[0]?.present
    ? sql`(SELECT name FROM ref.medical_institutions m WHERE m.id = r.medical_institution_id)`
    : sql`NULL`;
  const { rows } = await sql<{
    kind: 'comment' | 'like';
    actor: string | null;
    institution: string | null;
    comment: string | null;
  }>`
    SELECT r.kind, a.username AS actor, ${institution} AS institution, r.comment
      FROM notify.reactions r LEFT JOIN identity.accounts a ON a.id = r.actor_id
     WHERE r.recipient_id = ${digest.recipient_id} AND r.day = ${digest.day}::date
     ORDER BY r.reacted_at, r.event_id`.execute(db.kysely);
  return rows.map((r) => ({
    kind: r.kind,
    actor: r.actor ?? '（削除されたアカウント）',
    institution: r.institution ?? '医療機関',
    comment: r.comment,
  }));
}

/**
 * Sends every summary due at `now` that was not claimed yet; answers how many mails left. A summary is
 * claimed (a committed row) before its mail is sent: a crash between the two loses that one mail
 * rather than sending it twice; an SMTP refusal frees the claim, and the next round tries again.
 */
export async function sendDueDigests(
  db: Database,
  options: { now: Date; transport: MailTransport; origin: string; from: string },
): Promise<number> {
  await migrate(db);
  const due = await sql<DueDigest>`
    SELECT DISTINCT r.recipient_id::text AS recipient_id, to_char(r.day, 'YYYY-MM-DD') AS day
      FROM notify.reactions r
     WHERE r.day <= ${lastDueDay(options.now)}::date
       AND NOT EXISTS (SELECT 1 FROM notify.reaction_digests d WHERE d.recipient_id = r.recipient_id AND d.day = r.day)
     ORDER BY day, recipient_id
     LIMIT 500`.execute(db.kysely);
  let sent = 0;
  for (const digest of due.rows) {
    const recipient = await recipientOf(db, digest.recipient_id);
    const status = recipient?.wants && recipient.email ? 'sending' : 'skipped';
    const claimed = await sql`
      INSERT INTO notify.reaction_digests (recipient_id, day, status) VALUES (${digest.recipient_id}, ${digest.day}::date, ${status})
      ON CONFLICT DO NOTHING RETURNING recipient_id`.execute(db.kysely);
    if (claimed.rows.length === 0 || status === 'skipped') continue;
    const mail = mailOf(recipient!, digest.day, await itemsOf(db, digest), options.origin);
    try {
      await options.transport.sendMail({
        from: options.from,
        to: { name: recipient!.username, address: recipient!.email! },
        subject: mail.subject,
        text: mail.text,
        messageId: `<reaction-digest-${digest.recipient_id}-${digest.day}@renkei>`,
      });
    } catch (error) {
      await sql`DELETE FROM notify.reaction_digests WHERE recipient_id = ${digest.recipient_id} AND day = ${digest.day}::date`.execute(
        db.kysely,
      );
      throw error;
    }
    await sql`UPDATE notify.reaction_digests SET status = 'sent', sent_at = now()
      WHERE recipient_id = ${digest.recipient_id} AND day = ${digest.day}::date`.execute(db.kysely);
    sent++;
  }
  return sent;
}

export function createReactionDigestReactor(options: ReactionDigestOptions = {}): Reactor {
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
    name: 'reaction_digest',
    eventTypes: ['CommunicationCommentAdded', 'CommunicationLiked'],
    // Mails: reactions from before the first start are not summarised after the fact.
    startAt: 'head',
    handle: (events, ctx) => recordReactions(ctx.db, ctx.store, events),
    async background(ctx) {
      await repeatUntilAborted(
        ctx.signal,
        options.intervalMs ?? 60_000,
        () =>
          sendDueDigests(ctx.db, { now: options.clock?.() ?? new Date(), transport: mailer(), origin: origin(), from }),
        (error) => ctx.logger?.warn({ err: error }, 'reaction digest: sending failed, will retry'),
      );
      transport?.close();
    },
  });
}
