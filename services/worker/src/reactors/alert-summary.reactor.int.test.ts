import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { alertAggregate, type AlertEvaluated } from '@renkei/domain';
import { createPostgresEventStore, newEventMetadata, streamId, type EventStore } from '@renkei/event-store';
import {
  createAlertSummaryReactor,
  lastDueMorning,
  sendDueAlertSummaries,
  summaryMorningOf,
} from './alert-summary.reactor.ts';
import { castOf, createTestAccounts, mailCatcher } from '../notifications/notification-mail.testing.ts';

let db: TestDatabase;
let store: EventStore;
const cast = castOf('enabled_alerts_summary');
const { tenantId, otherTenantId } = cast;
const { wants, settingOff, masterOff, inactive, withoutEmail } = cast.ids;

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  await createTestAccounts(db, cast.accounts);
});

afterAll(async () => {
  await store?.close();
  await db?.close();
});

const conditionSummary = '前月比で紹介が5件以上減少（静岡県）';

/** Appends the next evaluation of an alert (the first is AlertRaised) and answers the stored event. */
async function evaluate(tenant: string, alertId: string, name: string, institutionIds: string[]) {
  const stream = streamId(alertAggregate, alertId);
  const stored = await store.readStream(stream, { tenantId: tenant }).catch(() => []);
  const data: AlertEvaluated = {
    alert_id: alertId,
    condition_id: randomUUID(),
    name,
    condition_summary: conditionSummary,
    condition_parameters: {
      triggers: {
        referral_change_count: { direction: 'decrease', count: 5 },
        referral_change_rate: null,
        referral_count: null,
        referral_average: null,
        communication_visit: null,
      },
      filters: {
        prefecture: '22',
        area: null,
        facility_type_ids: [],
        department_ids: [],
        tag_ids: [],
        referral_count: null,
        referral_average: null,
        communication_visit: 'all',
      },
    },
    alert_date: '2026-10-01',
    evaluated_on: '2026-11-01',
    target_count: institutionIds.length,
    institutions: {
      medical_institution_ids: institutionIds,
      referral_counts: institutionIds.map(() => 1),
      comparison_referral_counts: institutionIds.map(() => 8),
      last_visit_dates: institutionIds.map(() => null),
    },
  };
  await store.append(
    stream,
    [
      {
        type: stored.length === 0 ? 'AlertRaised' : 'AlertUpdated',
        data,
        metadata: { ...newEventMetadata(tenant, null), schema_version: 1 },
      },
    ],
    { expectedRevision: stored.length === 0 ? 'no_stream' : stored.length - 1 },
  );
  return (await store.readStream(stream, { tenantId: tenant })).at(-1)!;
}

const morningAt = (day: string) => new Date(`${day}T07:00:00+09:00`);
const ctx = () => ({ db, store });

describe('the alerts summary mail', () => {
  it('tells a morning the alerts since the morning before, from 07:00 Japan time', () => {
    expect(summaryMorningOf(new Date('2026-11-24T21:59:59Z'))).toBe('2026-11-25'); // 06:59 on the 25th
    expect(summaryMorningOf(new Date('2026-11-24T22:00:00Z'))).toBe('2026-11-26'); // 07:00 on the 25th
    expect(lastDueMorning(new Date('2026-11-24T21:59:00Z'))).toBe('2026-11-24');
    expect(lastDueMorning(new Date('2026-11-24T22:00:00Z'))).toBe('2026-11-25');
  });

  it('sends one summary per person and morning to the tenant accounts that want it, once across repeats and two workers', async () => {
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    const dropping = randomUUID();
    const unvisited = randomUUID();
    const events = [
      await evaluate(tenantId, dropping, '紹介減少（前月比50%以上減）', [a, b, c]),
      // Same institutions, other figures: nothing new to tell.
      await evaluate(tenantId, dropping, '紹介減少（前月比50%以上減）', [c, b, a]),
      await evaluate(tenantId, unvisited, '90日以上未訪問の紹介元', [a]),
    ];
    const reactor = createAlertSummaryReactor();
    await reactor.handle(events, ctx());
    await reactor.handle(events, ctx()); // the batch delivered again
    // Updated later that morning with one more institution: a second line it is not.
    const grown = await evaluate(tenantId, unvisited, '90日以上未訪問の紹介元', [a, b]);
    await reactor.handle([grown], ctx());

    const day = summaryMorningOf(events[0]!.created_at);
    const { mails, transport, failOnce } = mailCatcher();
    const options = { transport, origin: 'https://renkei.example', from: 'Renkei <no-reply@renkei.example>' };

    expect(await sendDueAlertSummaries(db, { ...options, now: new Date(morningAt(day).getTime() - 60_000) })).toBe(0);

    failOnce();
    await expect(sendDueAlertSummaries(db, { ...options, now: morningAt(day) })).rejects.toThrow('SMTP 451');
    expect(mails).toHaveLength(0);

    // The next round and a second worker at the same moment: the refused summary leaves once.
    const sent = await Promise.all([
      sendDueAlertSummaries(db, { ...options, now: morningAt(day) }),
      sendDueAlertSummaries(db, { ...options, now: morningAt(day) }),
    ]);
    expect(sent.reduce((x, y) => x + y, 0)).toBe(1);
    expect(mails.map((m) => m.to.address)).toEqual(['hanako@sakura.example']);
    const [mail] = mails;
    const [y, m, d] = day.split('-').map(Number);
    expect(mail!.subject).toBe(`【Renkei】${y}年${m}月${d}日のアラート（2件）`);
    expect(mail!.text).toContain('山田 花子さん');
    expect(mail!.text).toContain('■ 紹介減少（前月比50%以上減）（2026年10月分）【新着】');
    expect(mail!.text).toContain(`条件: ${conditionSummary}`);
    expect(mail!.text).toContain('対象: 3件');
    expect(mail!.text).toContain(`https://renkei.example/app/alerts/${dropping}`);
    expect(mail!.text).toContain('■ 90日以上未訪問の紹介元（2026年10月分）【新着】');
    expect(mail!.text).toContain('対象: 2件');
    expect(mail!.text).toContain(`https://renkei.example/app/alerts/${unvisited}`);
    expect(mail!.text).toContain('https://renkei.example/app/profile');
    expect(mail!.messageId).toBe(`<alert-summary-${wants}-${day}@renkei>`);

    // Who does not want it was claimed as skipped, so switching the setting on later sends no old news.
    const { rows } = await sql<{ recipient_id: string; status: string }>`
      SELECT recipient_id::text AS recipient_id, status FROM notify.alert_summaries WHERE day = ${day}::date`.execute(
      db.kysely,
    );
    expect(Object.fromEntries(rows.map((r) => [r.recipient_id, r.status]))).toEqual({
      [wants]: 'sent',
      [settingOff]: 'skipped',
      [masterOff]: 'skipped',
      [inactive]: 'skipped',
      [withoutEmail]: 'skipped',
    });

    // A restart repeats the batch and the rounds: nothing more leaves, that morning or later.
    await reactor.handle([...events, grown], ctx());
    expect(
      await sendDueAlertSummaries(db, { ...options, now: new Date(morningAt(day).getTime() + 2 * 86_400_000) }),
    ).toBe(0);
    expect(mails).toHaveLength(1);
  });

  it('tells an update only of new institutions, and an alert seen after its morning left the next morning', async () => {
    const alertId = randomUUID();
    const [a, b] = [randomUUID(), randomUUID()];
    const raised = await evaluate(tenantId, alertId, '紹介月平均3件以上', [a, b]);
    const day = summaryMorningOf(raised.created_at);
    const { mails, transport } = mailCatcher();
    const options = { transport, origin: 'https://renkei.example', from: 'Renkei <no-reply@renkei.example>' };
    // The morning's summaries are out (the test before) when the reactor sees this alert: it goes in
    // the next morning's, not nowhere.
    await createAlertSummaryReactor().handle([raised], ctx());
    expect(await sendDueAlertSummaries(db, { ...options, now: morningAt(day) })).toBe(0);
    const next = new Date(morningAt(day).getTime() + 86_400_000);
    expect(await sendDueAlertSummaries(db, { ...options, now: next })).toBe(1);
    expect(mails[0]!.text).toContain('■ 紹介月平均3件以上（2026年10月分）【新着】');

    // One institution out, one in: an update with a new institution, told as such.
    const shifted = await evaluate(tenantId, alertId, '紹介月平均3件以上', [b, randomUUID()]);
    // Fewer institutions: nothing new, but the line shows the latest figures.
    const shrunk = await evaluate(tenantId, alertId, '紹介月平均3件以上', [b]);
    await createAlertSummaryReactor().handle([shifted, shrunk], ctx());
    const { rows } = await sql<{ event_id: string; new_count: number; kind: string }>`
      SELECT event_id::text AS event_id, new_count, kind FROM notify.alert_items WHERE alert_id = ${alertId}
       ORDER BY raised_at`.execute(db.kysely);
    expect(rows.map((r) => [r.event_id, r.kind, r.new_count])).toEqual([
      [raised.id, 'raised', 2],
      [shifted.id, 'updated', 1],
      [shrunk.id, 'updated', 0],
    ]);
    const later = new Date(next.getTime() + 86_400_000);
    expect(await sendDueAlertSummaries(db, { ...options, now: later })).toBe(1);
    expect(mails[1]!.text).toContain('■ 紹介月平均3件以上（2026年10月分）【対象追加】');
    expect(mails[1]!.text).toContain('対象: 1件（新たに1件）');
    expect(mails.map((m) => m.to.address)).toEqual(['hanako@sakura.example', 'hanako@sakura.example']);
  });

  it("tells a tenant's alerts to its own accounts only", async () => {
    const theirs = randomUUID();
    const raised = await evaluate(otherTenantId, theirs, '梅病院の紹介減少', [randomUUID()]);
    await createAlertSummaryReactor().handle([raised], ctx());
    const day = summaryMorningOf(raised.created_at);
    const { mails, transport } = mailCatcher();
    const options = { transport, origin: 'https://renkei.example', from: 'Renkei <no-reply@renkei.example>' };
    expect(await sendDueAlertSummaries(db, { ...options, now: morningAt(day) })).toBe(1);
    expect(mails.map((m) => m.to.address)).toEqual(['goro@ume.example']);
    expect(mails[0]!.text).toContain('■ 梅病院の紹介減少');
    expect(mails[0]!.text).not.toContain('紹介月平均3件以上');
    expect(mails[0]!.text).not.toContain('90日以上未訪問の紹介元');
  });
});
