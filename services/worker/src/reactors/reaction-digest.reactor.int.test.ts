import { randomUUID } from 'node:crypto';
import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, newEventMetadata, streamId, type EventStore } from '@renkei/event-store';
import { createReactionDigestReactor, lastDueDay, recordReactions, sendDueDigests } from './reaction-digest.reactor.ts';
import { jstDay } from '../japan-time.ts';
import { blankCommunication } from '@renkei/domain/testing';
import { createTestAccounts, mailCatcher } from '../notifications/notification-mail.testing.ts';

let db: TestDatabase;
let store: EventStore;
const tenantId = randomUUID();
const author = randomUUID();
const quiet = randomUUID(); // has switched the summary off
const colleague = randomUUID();
const institutionId = randomUUID();

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  await createTestAccounts(db, [
    { id: author, tenant_id: tenantId, username: '山田 花子', email: 'hanako@sakura.example' },
    {
      id: quiet,
      tenant_id: tenantId,
      username: '鈴木 一郎',
      email: 'ichiro@sakura.example',
      enabled_communication_reactions_summary: false,
    },
    { id: colleague, tenant_id: tenantId, username: '佐藤 次郎', email: 'jiro@sakura.example' },
  ]);
});

afterAll(async () => {
  await store?.close();
  await db?.close();
});

async function communicationBy(userId: string): Promise<string> {
  const id = randomUUID();
  await store.append(
    streamId('communication', id),
    [
      {
        type: 'CommunicationCreated',
        data: blankCommunication(
          { communication_id: id, medical_institution_id: institutionId, user_id: userId, acted_date: '2026-11-20' },
          { story: '訪問しました', tasks: [] },
        ),
        metadata: newEventMetadata(tenantId, userId),
      },
    ],
    { expectedRevision: 'no_stream' },
  );
  return id;
}

async function react(communicationId: string, actor: string, comment?: string) {
  await store.append(
    streamId('communication', communicationId),
    [
      comment === undefined
        ? {
            type: 'CommunicationLiked',
            data: { communication_id: communicationId, user_id: actor },
            metadata: newEventMetadata(tenantId, actor),
          }
        : {
            type: 'CommunicationCommentAdded',
            data: { communication_id: communicationId, comment_id: randomUUID(), user_id: actor, comment },
            metadata: newEventMetadata(tenantId, actor),
          },
    ],
    { expectedRevision: 'any' },
  );
  return (await store.readStream(streamId('communication', communicationId), { tenantId })).at(-1)!;
}

describe('the daily reactions summary', () => {
  it('is due from 07:00 Japan time of the next day', () => {
    expect(jstDay(new Date('2026-11-23T15:30:00Z'))).toBe('2026-11-24');
    expect(lastDueDay(new Date('2026-11-24T21:59:00Z'))).toBe('2026-11-23'); // 06:59 on the 25th in Japan
    expect(lastDueDay(new Date('2026-11-24T22:00:00Z'))).toBe('2026-11-24'); // 07:00 on the 25th
  });

  it('sends one mail per person and day, to those who want it, once across repeats, restarts and two workers', async () => {
    const mine = await communicationBy(author);
    const theirs = await communicationBy(quiet);
    const events = [
      await react(mine, colleague, 'ありがとうございます。次回は同行します。'),
      await react(mine, colleague),
      await react(mine, author, '自分のコメント'), // one's own: not a reaction
      await react(theirs, colleague, '確認しました'), // its owner switched the summary off
    ];
    await recordReactions(db, store, events);
    await recordReactions(db, store, events); // the batch delivered again

    const day = jstDay(events[0]!.created_at);
    const before = new Date(`${day}T21:59:00Z`); // 06:59 the next day in Japan
    const after = new Date(`${day}T22:00:00Z`);
    const { mails, transport, failOnce } = mailCatcher();
    const options = { transport, origin: 'https://renkei.example', from: 'Renkei <no-reply@renkei.example>' };

    expect(await sendDueDigests(db, { ...options, now: before })).toBe(0);

    failOnce();
    await expect(sendDueDigests(db, { ...options, now: after })).rejects.toThrow('SMTP 451');
    expect(mails).toHaveLength(0);

    // The next round (or a second worker at the same moment) sends the refused summary, once.
    const sent = await Promise.all([
      sendDueDigests(db, { ...options, now: after }),
      sendDueDigests(db, { ...options, now: after }),
    ]);
    expect(sent.reduce((a, b) => a + b, 0)).toBe(1);
    expect(mails).toHaveLength(1);
    const [mail] = mails;
    expect(mail!.to.address).toBe('hanako@sakura.example');
    expect(mail!.subject).toMatch(/^【Renkei】\d{4}年\d{1,2}月\d{1,2}日の活動記録へのリアクション$/);
    expect(mail!.text).toContain('コメント1件、いいね1件');
    expect(mail!.text).toContain('佐藤 次郎さんがコメントしました');
    expect(mail!.text).toContain('「ありがとうございます。次回は同行します。」');
    expect(mail!.text).toContain('佐藤 次郎さんがいいねしました');
    expect(mail!.text).not.toContain('自分のコメント');
    expect(mail!.messageId).toBe(`<reaction-digest-${author}-${day}@renkei>`);

    // A restart repeats the batch and the round: nothing more leaves, that day or later.
    await recordReactions(db, store, events);
    expect(await sendDueDigests(db, { ...options, now: new Date(after.getTime() + 3 * 86_400_000) })).toBe(0);
    expect(mails).toHaveLength(1);
  });

  it('keeps looking every round without piling listeners on the stop signal, and stops when told', async () => {
    let rounds = 0;
    const reactor = createReactionDigestReactor({
      transport: () => mailCatcher().transport,
      intervalMs: 1,
      clock: () => (rounds++, new Date('2020-01-01T00:00:00Z')),
    });
    const abort = new AbortController();
    const running = reactor.background!({ db, store, signal: abort.signal });
    await expect.poll(() => rounds, { timeout: 30_000 }).toBeGreaterThan(20);
    expect(getEventListeners(abort.signal, 'abort').length).toBeLessThanOrEqual(1);
    abort.abort();
    await running;
  });
});
