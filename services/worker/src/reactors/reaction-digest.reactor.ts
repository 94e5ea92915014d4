import { sql } from 'kysely';
import type { Database } from '@renkei/db';
import { communicationAggregate, parseCommunicationEvent } from '@renkei/domain';
import { readStreamOrEmpty, streamId, type EventStore, type RecordedEvent } from '@renkei/event-store';
import type { Reactor } from '@renkei/projections';
import { jstDay } from '../japan-time.ts';
import {
  defineNotificationMailReactor,
  japaneseDate,
  mailText,
  morningHourJst,
  sendSummaries,
  type DueSummary,
  type MailDelivery,
  type NotificationMailOptions,
  type Recipient,
} from '../notifications/notification-mail.ts';
import { migrateNotify } from '../notifications/notify.migrations.ts';

/**
 * The daily summary mail of reactions (spec §3 notification settings, `enabled_communication_reactions_summary`):
 * the comments and likes others left on my communications yesterday (Japan time), one mail per person
 * and day, sent in the morning. The reactor records each reaction once (keyed by its event id); the
 * background loop sends the due summaries, each claimed in the database before it is sent, so no
 * restart, second worker or repeated batch sends it twice.
 */

/** The last day whose summary is due at `now`: yesterday from 07:00 JST, the day before until then. */
export function lastDueDay(now: Date): string {
  return jstDay(new Date(now.getTime() - (24 + morningHourJst) * 60 * 60 * 1000));
}

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
  await migrateNotify(db);
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

function mailOf(recipient: Recipient, day: string, items: DigestItem[], origin: string) {
  const comments = items.filter((i) => i.kind === 'comment');
  const likes = items.filter((i) => i.kind === 'like');
  const date = japaneseDate(day);
  const line = (i: DigestItem) =>
    i.kind === 'comment'
      ? `・${i.actor}さんがコメントしました（${i.institution}）\n  「${i.comment}」`
      : `・${i.actor}さんがいいねしました（${i.institution}）`;
  const text = mailText(
    recipient.username,
    [
      `${date}、あなたの活動記録に${comments.length ? `コメント${comments.length}件` : ''}${comments.length && likes.length ? '、' : ''}${likes.length ? `いいね${likes.length}件` : ''}がありました。`,
      '',
      ...items.map(line),
      '',
      `活動記録: ${origin}/app/communications`,
    ],
    origin,
  );
  return { subject: `【Renkei】${date}の活動記録へのリアクション`, text };
}

interface DigestItem {
  kind: 'comment' | 'like';
  actor: string;
  institution: string;
  comment: string | null;
}

async function itemsOf(db: Database, digest: DueSummary): Promise<DigestItem[]> {
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

/** Sends every summary due at `now` that was not claimed yet; answers how many mails left. */
export async function sendDueDigests(db: Database, options: MailDelivery & { now: Date }): Promise<number> {
  await migrateNotify(db);
  const due = await sql<DueSummary>`
    SELECT DISTINCT r.recipient_id::text AS recipient_id, to_char(r.day, 'YYYY-MM-DD') AS day
      FROM notify.reactions r
     WHERE r.day <= ${lastDueDay(options.now)}::date
       AND NOT EXISTS (SELECT 1 FROM notify.reaction_digests d WHERE d.recipient_id = r.recipient_id AND d.day = r.day)
     ORDER BY day, recipient_id
     LIMIT 500`.execute(db.kysely);
  return sendSummaries(db, options, due.rows, {
    table: 'reaction_digests',
    setting: 'enabled_communication_reactions_summary',
    messageIdPrefix: 'reaction-digest',
    compose: async (digest, to) => mailOf(to, digest.day, await itemsOf(db, digest), options.origin),
  });
}

/**
 * The daily summary mail of reactions (docs/decisions.md "Notification mails"): records each reaction
 * once, and sends the due summaries every minute, each claimed before it leaves.
 */
export function createReactionDigestReactor(options: NotificationMailOptions = {}): Reactor {
  return defineNotificationMailReactor(
    {
      name: 'reaction_digest',
      eventTypes: ['CommunicationCommentAdded', 'CommunicationLiked'],
      handle: (events, ctx) => recordReactions(ctx.db, ctx.store, events),
      sendDue: sendDueDigests,
    },
    options,
  );
}
