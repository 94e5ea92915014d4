import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { AlertFilters, AlertTriggers, StoredAlertFilters, StoredAlertTriggers } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { alertAggregate, alertIdOf } from '@renkei/domain';
import {
  createPostgresEventStore,
  readStreamOrEmpty,
  streamId,
  type EventStore,
  type Position,
} from '@renkei/event-store';
import { buildInstitutionCode, importInstitutionMaster, institutionIdFromCode } from '@renkei/institution-master';
import { startProjections, waitForPosition } from '@renkei/projections';
import { readModelProjections } from '@renkei/read-models';
import { createAlertEvaluationReactor, evaluateMissing } from '../reactors/alert-evaluation.reactor.ts';
import { enterReferral } from '../reactors/referral-entry.testing.ts';
import { referralWithdrawalReactor } from '../reactors/referral-withdrawal.reactor.ts';
import { evaluateCondition, matchInstitutions, monthOf } from './alert-evaluation.ts';

// The evaluation against a direct count of the raw facts: referrals written through the referrals
// projection (rollups), visits through the communications projection, tags through the CRM's.
const now = new Date('2026-04-10T03:00:00Z'); // 2026-04-10 in Japan: evaluates March 2026
const month = '2026-03-01';
const today = '2026-04-10';

const master = Array.from({ length: 10 }, (_, i) => ({
  code: buildInstitutionCode({
    prefectureCode: i < 7 ? 22 : 13,
    scoreTable: 1,
    districtNumber: 2,
    institutionNumber: 2001 + i,
  }),
  name: `テスト医院${i}`,
  address: i < 7 ? `静岡県${i % 2 ? '沼津市' : '静岡市葵区'}追手町${i}` : `東京都新宿区西新宿${i}`,
  type: i % 3 === 0 ? '一般病院' : '診療所',
}));
const ids = master.map((m) => institutionIdFromCode(m.code));

/** A small deterministic generator, so a failure reproduces. */
function random(seed: number) {
  let s = seed;
  return (n: number) => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return Math.floor((s / 2147483648) * n);
  };
}

interface RawReferral {
  institution: string;
  date: string;
}
const referrals: RawReferral[] = [];
const visits: { institution: string; date: string; type: 'visit' | 'new_visit' | 'phone' }[] = [];
const tag = randomUUID();
const tagged = [ids[8]!, ids[2]!];

{
  const r = random(7);
  // Institutions 0–6 refer from 2024-04 to 2026-04 (April 2026 is not complete: never counted); 7 only
  // long before the 24-month window; 8 never refers but is tagged; 9 nothing at all.
  for (let i = 0; i <= 6; i++)
    for (let m = 0; m < 25; m++) {
      const first = monthOf('2024-04-01', m);
      const n = i === 3 && first === '2026-02-01' ? 0 : r(i === 5 ? 2 : 7);
      for (let k = 0; k < n; k++)
        referrals.push({ institution: ids[i]!, date: `${first.slice(0, 8)}${String(1 + r(28)).padStart(2, '0')}` });
    }
  referrals.push({ institution: ids[7]!, date: '2022-05-10' });
  const visitDays = ['2026-04-01', '2025-12-01', '2026-01-10', '2025-06-30', '2026-03-31'];
  for (let i = 0; i < 5; i++)
    visits.push({ institution: ids[i]!, date: visitDays[i]!, type: i === 2 ? 'new_visit' : 'visit' });
  // A phone call is no visit.
  visits.push({ institution: ids[5]!, date: '2026-04-05', type: 'phone' });
}

let db: TestDatabase;
let store: EventStore;
let projections: { stop(): Promise<void> };
const tenantId = randomUUID();
let last: Position;

const metadata = () => ({
  tenant_id: tenantId,
  account_id: null,
  correlation_id: randomUUID(),
  causation_id: null,
  schema_version: 1,
});

/** Appends a referral upload of `rows` for `tenant` (finished as completed when `finished`); its last event. */
async function importReferrals(tenant: string, rows: RawReferral[], finished = false) {
  const importId = randomUUID();
  const meta = () => ({ ...metadata(), tenant_id: tenant });
  const chunk = { import_id: importId, failed_row_count: 0, errors: [] };
  const events: { type: string; data: unknown }[] = [
    {
      type: 'ReferralDataImportRequested',
      data: { import_id: importId, import_type: 'referral', filename: 'x.csv', stored_path: '/x', mapping: null },
    },
    { type: 'ReferralDataImportStarted', data: { import_id: importId, total_row_count: rows.length } },
    {
      type: 'ReferralsImported',
      data: {
        ...chunk,
        chunk: 0,
        imported_row_count: rows.length,
        referrals: rows.map((x, i) => ({
          identity: `referral:${importId}:${i}`,
          row_number: i + 2,
          referral_date: x.date,
          patient_id: `p${i}`,
          patient_key: `p${i}`,
          medical_institution_id: x.institution,
          institution_code: master[ids.indexOf(x.institution)]!.code,
          institution_name: 'x',
          from_department: null,
          from_doctor: null,
          to_department: null,
          own_department_id: null,
          to_doctor: null,
          purpose: null,
          first_visit: null,
          source_id: null,
        })),
      },
    },
  ];
  if (finished)
    events.push({
      type: 'ReferralDataImportFinished',
      data: {
        import_id: importId,
        status: 'completed',
        imported_row_count: rows.length,
        failed_row_count: 0,
        unprocessed_row_count: 0,
        abortion_row_number: null,
        error: null,
      },
    });
  const stream = streamId('referral_data_import', importId);
  await store.append(
    stream,
    events.map((e) => ({ ...e, metadata: meta() })),
    { expectedRevision: 'no_stream' },
  );
  return (await readStreamOrEmpty(store, stream, tenant)).at(-1)!;
}

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alert-eval-'));
  fs.writeFileSync(
    path.join(dir, 'm.csv'),
    master.map((m) => `${m.code},${m.name},,,${m.address},,,,${m.type},0,内科,,,開設`).join('\n') + '\n',
  );
  await importInstitutionMaster(db, path.join(dir, 'm.csv'));
  fs.rmSync(dir, { recursive: true, force: true });
  projections = startProjections({ db, store, projections: readModelProjections });
  await importReferrals(tenantId, referrals);
  for (const v of visits) {
    const id = randomUUID();
    const appended = await store.append(
      streamId('communication', id),
      [
        {
          type: 'CommunicationCreated',
          data: {
            communication_id: id,
            medical_institution_id: v.institution,
            communication_type: v.type,
            acted_date: v.date,
            category: null,
            purpose: null,
            story: '',
            event_name: null,
            memo: '',
            other_memo: '',
            person_in_charge_hospital: null,
            attendee: null,
            is_doctor_attended: false,
            user_id: randomUUID(),
            attachment_ids: [],
            label_values: [],
            tasks: [],
          },
          metadata: metadata(),
        },
      ],
      { expectedRevision: 'no_stream' },
    );
    last = appended.position;
  }
  for (const id of tagged) {
    const appended = await store.append(
      streamId('medical_institution', `${tenantId}:${id}`),
      [
        {
          type: 'MedicalInstitutionTagsChanged',
          data: { medical_institution_id: id, tag_ids: [tag], added_tag_ids: [tag], removed_tag_ids: [] },
          metadata: metadata(),
        },
      ],
      { expectedRevision: 'any' },
    );
    last = appended.position;
  }
  const appended = await store.append(
    streamId('tag', tag),
    [
      {
        type: 'TagCreated',
        data: { tag_id: tag, name: '重点', description: '', group_name: null },
        metadata: metadata(),
      },
    ],
    { expectedRevision: 'no_stream' },
  );
  last = appended.position;
  const names = readModelProjections.map((p) => p.name);
  expect(await waitForPosition(db, names, last, 60_000)).toBe(true);
}, 120_000);

afterAll(async () => {
  await projections?.stop();
  await store?.close();
  await db?.close();
});

/** The oracle: figures of every institution of the tenant straight from the raw facts. */
function expected(triggers: AlertTriggers, filters: AlertFilters = AlertFilters.parse({})) {
  const months = (from: string, to: string) => referrals.filter((x) => x.date >= from && x.date < monthOf(to, 1));
  const windowStart = monthOf(month, -23);
  const universe = new Set([
    ...months(windowStart, month).map((x) => x.institution),
    ...visits.filter((v) => v.type !== 'phone').map((v) => v.institution),
    ...tagged,
  ]);
  const lastVisit = (id: string) =>
    visits
      .filter((v) => v.institution === id && v.type !== 'phone')
      .map((v) => v.date)
      .sort()
      .at(-1) ?? null;
  const countIn = (id: string, from: string, to: string) => months(from, to).filter((x) => x.institution === id).length;
  const daysBetween = (a: string, b: string) => (Date.parse(b) - Date.parse(a)) / 86_400_000;
  return [...universe]
    .filter((id) => {
      const n = countIn(id, month, month);
      const c = countIn(id, monthOf(month, -1), monthOf(month, -1));
      const lv = lastVisit(id);
      const t = triggers;
      if (t.referral_change_count) {
        const diff = t.referral_change_count.direction === 'decrease' ? c - n : n - c;
        if (diff < t.referral_change_count.count) return false;
      }
      if (t.referral_change_rate) {
        if (c === 0) return false;
        const rate = ((t.referral_change_rate.direction === 'decrease' ? c - n : n - c) / c) * 100;
        if (rate < t.referral_change_rate.rate - 1e-9) return false;
      }
      if (
        t.referral_count &&
        (t.referral_count.comparison === 'gte' ? n < t.referral_count.count : n > t.referral_count.count)
      )
        return false;
      if (t.referral_average) {
        const avg = countIn(id, monthOf(month, -(t.referral_average.months - 1)), month) / t.referral_average.months;
        if (
          t.referral_average.comparison === 'gte' ? avg < t.referral_average.average : avg > t.referral_average.average
        )
          return false;
      }
      if (t.communication_visit && lv !== null && daysBetween(lv, today) < t.communication_visit.days_without_visit)
        return false;
      if (filters.prefecture && !master[ids.indexOf(id)]!.address.startsWith('静岡県')) return false;
      if (filters.tag_ids.length > 0 && !tagged.includes(id)) return false;
      if (filters.communication_visit === 'not_visited' && lv !== null) return false;
      return true;
    })
    .sort();
}

const match = async (triggers: object, filters: object = {}) =>
  (
    await matchInstitutions(
      db.kysely,
      tenantId,
      { triggers: AlertTriggers.parse(triggers), filters: AlertFilters.parse(filters) },
      month,
      today,
    )
  )
    .map((m) => m.id)
    .sort();

describe('alert evaluation', () => {
  it('matches each trigger type as the raw facts say', async () => {
    const cases: object[] = [
      { referral_change_count: { direction: 'decrease', count: 2 } },
      { referral_change_count: { direction: 'increase', count: 1 } },
      { referral_change_rate: { direction: 'decrease', rate: 50 } },
      { referral_change_rate: { direction: 'increase', rate: 20 } },
      { referral_count: { comparison: 'lte', count: 0 } },
      { referral_count: { comparison: 'gte', count: 3 } },
      { referral_average: { comparison: 'gte', average: 3, months: 6 } },
      { referral_average: { comparison: 'lte', average: 1, months: 24 } },
      { communication_visit: { days_without_visit: 90 } },
      { communication_visit: { days_without_visit: 1 } },
    ];
    let nonEmpty = 0;
    for (const triggers of cases) {
      const parsed = AlertTriggers.parse(triggers);
      const matched = await match(triggers);
      expect(matched, JSON.stringify(triggers)).toEqual(expected(parsed));
      if (matched.length > 0) nonEmpty++;
    }
    // The fixture is not vacuous: most cases match someone.
    expect(nonEmpty).toBeGreaterThanOrEqual(7);
    // Institution 7 (referrals only before the window) and 9 (nothing) are never the tenant's.
    expect(await match({ referral_count: { comparison: 'lte', count: 0 } })).not.toContain(ids[7]);
    expect(await match({ communication_visit: { days_without_visit: 1 } })).toContain(ids[8]);
    // From 0 referrals the month before, a rate never matches (institution 3 had none in February).
    expect(await match({ referral_change_rate: { direction: 'increase', rate: 0 } })).not.toContain(ids[3]);
  });

  it('narrows by filters', async () => {
    const triggers = { communication_visit: { days_without_visit: 1 } };
    const parsed = AlertTriggers.parse(triggers);
    expect(await match(triggers, { prefecture: '22' })).toEqual(
      expected(parsed, AlertFilters.parse({ prefecture: '22' })),
    );
    expect(await match(triggers, { tag_ids: [tag] })).toEqual(expected(parsed, AlertFilters.parse({ tag_ids: [tag] })));
    expect(await match(triggers, { communication_visit: 'not_visited' })).toEqual(
      expected(parsed, AlertFilters.parse({ communication_visit: 'not_visited' })),
    );
  });

  it('compares parameters stored before the bounds (decimals, huge numbers) instead of failing', async () => {
    const stored = async (triggers: object, filters: object) =>
      matchInstitutions(
        db.kysely,
        tenantId,
        { triggers: StoredAlertTriggers.parse(triggers), filters: StoredAlertFilters.parse(filters) },
        month,
        today,
      );
    const visit = { communication_visit: { days_without_visit: 1 } };
    expect(await stored(visit, { referral_count: { min: 1.5, max: 3e9 } })).toEqual(
      await stored(visit, { referral_count: { min: 2, max: null } }),
    );
    expect(await stored({ referral_count: { comparison: 'gte', count: 3e9 } }, {})).toEqual([]);
    expect(await stored({ referral_change_count: { direction: 'decrease', count: 3e9 } }, {})).toEqual([]);
    expect(await stored({ referral_average: { comparison: 'gte', average: 3e9, months: 3 } }, {})).toEqual([]);
  });

  it('any combination of triggers matches as the facts do (property)', async () => {
    const direction = fc.constantFrom<'increase' | 'decrease'>('increase', 'decrease');
    const comparison = fc.constantFrom<'gte' | 'lte'>('gte', 'lte');
    const triggers = fc.record({
      referral_change_count: fc.option(fc.record({ direction, count: fc.integer({ min: 1, max: 6 }) })),
      referral_change_rate: fc.option(fc.record({ direction, rate: fc.integer({ min: 0, max: 300 }) })),
      referral_count: fc.option(fc.record({ comparison, count: fc.integer({ min: 0, max: 8 }) })),
      referral_average: fc.option(
        fc.record({
          comparison,
          average: fc.integer({ min: 0, max: 12 }).map((n) => n / 2),
          months: fc.integer({ min: 1, max: 24 }),
        }),
      ),
      communication_visit: fc.option(fc.record({ days_without_visit: fc.integer({ min: 1, max: 400 }) })),
    });
    await fc.assert(
      fc.asyncProperty(triggers, async (t) => {
        expect(await match(t)).toEqual(expected(AlertTriggers.parse(t)));
      }),
      { numRuns: 40 },
    );
  });

  it('raises one alert per condition and month; evaluating again adds nothing', async () => {
    const condition = {
      id: randomUUID(),
      name: '90日以上未訪問',
      type: 'communication' as const,
      triggers: AlertTriggers.parse({ communication_visit: { days_without_visit: 90 } }),
      filters: AlertFilters.parse({}),
    };
    const first = await evaluateCondition(db, store, { tenantId, condition, now });
    const again = await evaluateCondition(db, store, { tenantId, condition, now: new Date('2026-04-20T03:00:00Z') });
    expect(first).toMatchObject({
      kind: 'evaluated',
      appended: true,
      targetCount: expected(condition.triggers).length,
    });
    expect(again).toMatchObject({ kind: 'evaluated', appended: false });
    const events = await readStreamOrEmpty(store, streamId(alertAggregate, alertIdOf(condition.id, month)), tenantId);
    expect(events.map((e) => e.type)).toEqual(['AlertRaised']);
    expect(events[0]!.data).toMatchObject({
      alert_date: month,
      condition_summary: '90日以上訪問なし',
      target_count: expected(condition.triggers).length,
    });
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM alert_evaluation.evaluations
      WHERE condition_id = ${condition.id}`.execute(db.kysely);
    expect(rows[0]!.n).toBe(1);
  });

  it('records no alert when nothing matched, and skips a condition whose tag is gone', async () => {
    const none = await evaluateCondition(db, store, {
      tenantId,
      condition: {
        id: randomUUID(),
        name: 'なし',
        type: 'referral',
        triggers: AlertTriggers.parse({ referral_count: { comparison: 'gte', count: 1000 } }),
        filters: AlertFilters.parse({}),
      },
      now,
    });
    expect(none).toMatchObject({ kind: 'evaluated', targetCount: 0, appended: false });
    const invalid = await evaluateCondition(db, store, {
      tenantId,
      condition: {
        id: randomUUID(),
        name: '削除済みタグ',
        type: 'referral',
        triggers: AlertTriggers.parse({ referral_count: { comparison: 'gte', count: 0 } }),
        filters: AlertFilters.parse({ tag_ids: [randomUUID()] }),
      },
      now,
    });
    expect(invalid).toEqual({ kind: 'invalid' });
  });

  it('the month-turn loop evaluates each live condition once per month', async () => {
    const id = randomUUID();
    const appended = await store.append(
      streamId('alert_condition', id),
      [
        {
          type: 'AlertConditionCreated',
          data: {
            condition_id: id,
            name: '紹介月平均1件以上',
            type: 'referral',
            triggers: AlertTriggers.parse({ referral_average: { comparison: 'gte', average: 1, months: 3 } }),
            filters: AlertFilters.parse({}),
          },
          metadata: metadata(),
        },
      ],
      { expectedRevision: 'no_stream' },
    );
    expect(await waitForPosition(db, ['alerts'], appended.position, 30_000)).toBe(true);
    expect(await evaluateMissing({ db, store }, now)).toBeGreaterThanOrEqual(1);
    const events = await readStreamOrEmpty(store, streamId(alertAggregate, alertIdOf(id, month)), tenantId);
    expect(events.map((e) => e.type)).toEqual(['AlertRaised']);
    // Evaluated for March already: nothing until April turns.
    expect(await evaluateMissing({ db, store }, new Date('2026-04-25T03:00:00Z'))).toBe(0);
    // May turns, but the tenant's data ends inside April (uploaded up to 2026-04-28): April waits for it.
    await evaluateMissing({ db, store }, new Date('2026-05-01T03:00:00Z'));
    const april = await readStreamOrEmpty(store, streamId(alertAggregate, alertIdOf(id, '2026-04-01')), tenantId);
    expect(april).toEqual([]);
    expect(await evaluationsOf(id)).toEqual([month]);
  });

  it('a referral condition waits until the data reaches past its month; an import bringing it evaluates it', async () => {
    const tenant = randomUUID();
    const reactor = createAlertEvaluationReactor({ clock: () => now });
    // February: 10 referrals from institution 0; March so far (uploaded up to the 15th): 1.
    const february = Array.from({ length: 10 }, (_, i) => ({ institution: ids[0]!, date: `2026-02-${10 + i}` }));
    await importReferrals(tenant, [...february, { institution: ids[0]!, date: '2026-03-05' }], true);
    const decrease = await createCondition(tenant, '紹介減少', {
      referral_change_count: { direction: 'decrease', count: 2 },
    });
    const visitOnly = await createCondition(tenant, '未訪問', { communication_visit: { days_without_visit: 30 } });
    // At the turn of the month (and any day until the data is in) March is not evaluated: no alert
    // "10 → 1", no evaluation noted, so the loop and the next import try again.
    expect(await evaluateCondition(db, store, { tenantId: tenant, condition: decrease.condition, now })).toEqual({
      kind: 'waiting',
      month,
    });
    await evaluateMissing({ db, store }, now);
    expect(await alertEvents(tenant, decrease.id)).toEqual([]);
    expect(await evaluationsOf(decrease.id)).toEqual([]);
    // Days without a visit read no referral figures: evaluated as today.
    expect(await evaluationsOf(visitOnly.id)).toEqual([month]);

    // The rest of March and April up to yesterday arrive; the reactor handles the completed import. The
    // projections are paused so that the alerts read model is the last to take a condition created just
    // before the import: the re-evaluation waits for it too.
    await projections.stop();
    const late = await createCondition(
      tenant,
      '紹介3件以下',
      { referral_count: { comparison: 'lte', count: 3 } },
      false,
    );
    const finished = await importReferrals(
      tenant,
      [
        { institution: ids[0]!, date: '2026-03-20' },
        { institution: ids[0]!, date: '2026-03-28' },
        { institution: ids[0]!, date: '2026-04-09' },
      ],
      true,
    );
    const others = startProjections({
      db,
      store,
      projections: readModelProjections.filter((p) => p.name !== 'alerts'),
    });
    const names = readModelProjections.map((p) => p.name).filter((n) => n !== 'alerts');
    expect(await waitForPosition(db, names, finished.position, 30_000)).toBe(true);
    const handled = reactor.handle([finished], { db, store });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const alertsOnly = startProjections({
      db,
      store,
      projections: readModelProjections.filter((p) => p.name === 'alerts'),
    });
    await handled;
    await Promise.all([others.stop(), alertsOnly.stop()]);
    projections = startProjections({ db, store, projections: readModelProjections });

    const raised = await alertEvents(tenant, decrease.id);
    expect(raised.map((e) => e.type)).toEqual(['AlertRaised']);
    expect(raised[0]!.data).toMatchObject({
      alert_date: month,
      target_count: 1,
      institutions: { medical_institution_ids: [ids[0]], referral_counts: [3], comparison_referral_counts: [10] },
    });
    expect(await evaluationsOf(decrease.id)).toEqual([month]);
    expect((await alertEvents(tenant, late.id)).map((e) => e.type)).toEqual(['AlertRaised']);
  }, 60_000);

  it('a month-end export uploaded after the month (Japan time) evaluates the month without a later referral', async () => {
    const tenant = randomUUID();
    const names = readModelProjections.map((p) => p.name);
    // February: 10 referrals from institution 0; March up to Friday the 27th (the weekend has none).
    const february = Array.from({ length: 10 }, (_, i) => ({ institution: ids[0]!, date: `2026-02-${10 + i}` }));
    const upload = await importReferrals(
      tenant,
      [...february, { institution: ids[0]!, date: '2026-03-05' }, { institution: ids[0]!, date: '2026-03-27' }],
      true,
    );
    expect(await waitForPosition(db, names, upload.position, 30_000)).toBe(true);
    const importId = (upload.data as { import_id: string }).import_id;
    const uploadedAt = (at: string) =>
      sql`UPDATE rm.referral_data_imports SET created_at = ${at}::timestamptz
           WHERE tenant_id = ${tenant}::uuid AND id = ${importId}::uuid`.execute(db.kysely);
    const { condition } = await createCondition(tenant, '紹介減少', {
      referral_change_count: { direction: 'decrease', count: 2 },
    });
    // Uploaded on March 31st (Japan), before the month ended: the month may still grow.
    await uploadedAt('2026-03-31T14:59:00Z');
    expect(await evaluateCondition(db, store, { tenantId: tenant, condition, now })).toEqual({
      kind: 'waiting',
      month,
    });
    // Uploaded at 00:30 on April 1st in Japan (still March 31st in UTC): the month's export.
    await uploadedAt('2026-03-31T15:30:00Z');
    expect(await evaluateCondition(db, store, { tenantId: tenant, condition, now })).toMatchObject({
      kind: 'evaluated',
      targetCount: 1,
    });
    const raised = await alertEvents(tenant, condition.id);
    expect(raised.map((e) => e.type)).toEqual(['AlertRaised']);
    expect(raised[0]!.data).toMatchObject({
      alert_date: month,
      institutions: { medical_institution_ids: [ids[0]], referral_counts: [2], comparison_referral_counts: [10] },
    });
  }, 60_000);

  it("re-evaluates the tenant's month when its figures change mid-month: hand entries, then a withdrawn upload", async () => {
    const tenant = randomUUID();
    const reactor = createAlertEvaluationReactor({ clock: () => now });
    const ctx = { db, store };
    const names = readModelProjections.map((p) => p.name);
    // Institution 0: 3 referrals in March; the upload reaches into April, so March is complete.
    const upload = await importReferrals(
      tenant,
      [
        ...['2026-03-03', '2026-03-12', '2026-03-25'].map((date) => ({ institution: ids[0]!, date })),
        { institution: ids[0]!, date: '2026-04-02' },
      ],
      true,
    );
    expect(await waitForPosition(db, names, upload.position, 30_000)).toBe(true);
    const { id, condition } = await createCondition(tenant, '紹介3件以上', {
      referral_count: { comparison: 'gte', count: 3 },
    });
    await evaluateCondition(db, store, { tenantId: tenant, condition, now });
    const snapshot = async () => {
      const events = await alertEvents(tenant, id);
      const data = events.at(-1)?.data as { institutions: { medical_institution_ids: string[] } } | undefined;
      return {
        types: events.map((e) => e.type),
        institutions: [...(data?.institutions.medical_institution_ids ?? [])].sort(),
      };
    };
    expect(await snapshot()).toEqual({ types: ['AlertRaised'], institutions: [ids[0]] });

    // Mid-April, institution 1's three March referrals and one of institution 2 in April are entered by hand:
    // one batch, one re-evaluation, without waiting for an upload or the month to turn.
    const entries = [
      { institution: ids[1]!, date: '2026-03-04' },
      { institution: ids[1]!, date: '2026-03-18' },
      { institution: ids[1]!, date: '2026-03-30' },
      { institution: ids[2]!, date: '2026-04-06' },
    ];
    const entered = [];
    for (const [i, entry] of entries.entries())
      entered.push(
        await enterReferral(
          store,
          {
            institutionId: entry.institution,
            institutionCode: master[ids.indexOf(entry.institution)]!.code,
            date: entry.date,
            patient: `hand${i}`,
          },
          { ...metadata(), tenant_id: tenant },
        ),
      );
    await reactor.handle(entered, ctx);
    expect(await snapshot()).toEqual({ types: ['AlertRaised', 'AlertUpdated'], institutions: [ids[0], ids[1]].sort() });

    // The upload is withdrawn: institution 0's referrals leave March, and the alert with them.
    const withdrawal = streamId('referral_data_withdrawal', (upload.data as { import_id: string }).import_id);
    await store.append(
      withdrawal,
      [
        {
          type: 'ReferralDataImportWithdrawalRequested',
          data: { import_id: (upload.data as { import_id: string }).import_id, import_type: 'referral' },
          metadata: { ...metadata(), tenant_id: tenant },
        },
      ],
      { expectedRevision: 'no_stream' },
    );
    await referralWithdrawalReactor.handle(await readStreamOrEmpty(store, withdrawal, tenant), ctx);
    const completed = (await readStreamOrEmpty(store, withdrawal, tenant)).at(-1)!;
    expect(completed.type).toBe('ReferralDataImportWithdrawalCompleted');
    await reactor.handle([completed], ctx);
    expect(await snapshot()).toEqual({
      types: ['AlertRaised', 'AlertUpdated', 'AlertUpdated'],
      institutions: [ids[1]],
    });
  }, 60_000);

  it('one broken condition, or many waiting ones, do not stop the month-turn round for the others', async () => {
    const broken = randomUUID();
    const quiet = randomUUID();
    const waiting = Array.from({ length: 120 }, () => randomUUID());
    const other = randomUUID();
    const otherTenant = randomUUID();
    // Inserted straight into the read model, oldest first: a row no evaluation can read (of the tenant
    // with data), 120 conditions of a tenant without referral data (they wait), then another tenant's.
    await sql`INSERT INTO rm.alert_conditions (tenant_id, id, name, type, triggers, filters, created_at)
      VALUES (${tenantId}, ${broken}, '壊れた条件', 'referral', ${JSON.stringify({ referral_count: { comparison: 'gte', count: 'x' } })}::jsonb,
              '{}'::jsonb, '2000-01-01T00:00:00Z')`.execute(db.kysely);
    await sql`INSERT INTO rm.alert_conditions (tenant_id, id, name, type, triggers, filters, created_at)
      SELECT ${quiet}::uuid, w.id, '待ち', 'referral', ${JSON.stringify(AlertTriggers.parse({ referral_count: { comparison: 'gte', count: 0 } }))}::jsonb,
             ${JSON.stringify(AlertFilters.parse({}))}::jsonb, '2000-01-02T00:00:00Z'::timestamptz + w.n * interval '1 second'
        FROM unnest(${sql.val(waiting)}::uuid[]) WITH ORDINALITY AS w(id, n)`.execute(db.kysely);
    await sql`INSERT INTO rm.alert_conditions (tenant_id, id, name, type, triggers, filters, created_at)
      VALUES (${otherTenant}, ${other}, '未訪問', 'communication',
              ${JSON.stringify(AlertTriggers.parse({ communication_visit: { days_without_visit: 30 } }))}::jsonb,
              ${JSON.stringify(AlertFilters.parse({}))}::jsonb, '2000-01-03T00:00:00Z')`.execute(db.kysely);
    try {
      await evaluateMissing({ db, store }, now);
      expect(await evaluationsOf(other)).toEqual([month]);
      // The broken one stays unevaluated (tried again next round), as do the waiting ones.
      expect(await evaluationsOf(broken)).toEqual([]);
      expect(await evaluationsOf(waiting[119]!)).toEqual([]);
    } finally {
      await sql`DELETE FROM rm.alert_conditions WHERE id = ${broken} OR tenant_id IN (${quiet}, ${otherTenant})`.execute(
        db.kysely,
      );
    }
  });

  it('on a first deploy, an import from before the alerts read model exists is handled, not parked', async () => {
    const fresh = await createTestDatabase();
    const freshStore = await createPostgresEventStore(fresh);
    try {
      const importId = randomUUID();
      const stream = streamId('referral_data_import', importId);
      await freshStore.append(
        stream,
        [
          {
            type: 'ReferralDataImportFinished',
            data: {
              import_id: importId,
              status: 'completed',
              imported_row_count: 1,
              failed_row_count: 0,
              unprocessed_row_count: 0,
              abortion_row_number: null,
              error: null,
            },
            metadata: metadata(),
          },
        ],
        { expectedRevision: 'no_stream' },
      );
      const events = await readStreamOrEmpty(freshStore, stream, tenantId);
      const started = Date.now();
      await createAlertEvaluationReactor({ clock: () => now }).handle(events, { db: fresh, store: freshStore });
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await freshStore.close();
      await fresh.close();
    }
  }, 60_000);
});

const evaluationsOf = async (conditionId: string) =>
  (
    await sql<{ month: string }>`SELECT to_char(month, 'YYYY-MM-DD') AS month FROM alert_evaluation.evaluations
      WHERE condition_id = ${conditionId}::uuid ORDER BY month`.execute(db.kysely)
  ).rows.map((r) => r.month);

const alertEvents = (tenant: string, conditionId: string, alertMonth = month) =>
  readStreamOrEmpty(store, streamId(alertAggregate, alertIdOf(conditionId, alertMonth)), tenant);

/** Creates a condition through its event; waits for the alerts read model unless told not to. */
async function createCondition(tenant: string, name: string, triggers: object, wait = true) {
  const id = randomUUID();
  const condition = {
    id,
    name,
    type: 'communication_visit' in triggers ? ('communication' as const) : ('referral' as const),
    triggers: AlertTriggers.parse(triggers),
    filters: AlertFilters.parse({}),
  };
  const appended = await store.append(
    streamId('alert_condition', id),
    [
      {
        type: 'AlertConditionCreated',
        data: {
          condition_id: id,
          name,
          type: condition.type,
          triggers: condition.triggers,
          filters: condition.filters,
        },
        metadata: { ...metadata(), tenant_id: tenant },
      },
    ],
    { expectedRevision: 'no_stream' },
  );
  if (wait) expect(await waitForPosition(db, ['alerts'], appended.position, 30_000)).toBe(true);
  return { id, condition };
}
