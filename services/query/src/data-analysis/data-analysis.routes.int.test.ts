import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { featureKeys } from '@renkei/contracts';
import { bucketsOf, type DateRange } from '@renkei/domain';
import {
  departments,
  institutionName,
  staff,
  startAnalysisFixture,
  tag,
  tenantA,
  tenantB,
  type AnalysisFixture,
} from '../charts/analysis.testing.ts';

let fx: AnalysisFixture;
beforeAll(async () => {
  fx = await startAnalysisFixture();
});
afterAll(() => fx?.close());

const nil = '00000000-0000-0000-0000-000000000000';
interface Body {
  period: DateRange;
  own_department_ids: string[];
  facility_type_ids: string[];
  tag_ids: string[];
  limit: number;
  prefectures?: string[];
  cities?: string[];
}
const date = fc
  .integer({ min: Date.UTC(2022, 9, 1), max: Date.UTC(2026, 8, 30) })
  .map((ms) => new Date(ms).toISOString().slice(0, 10));
const period = fc.tuple(date, date).map(([a, b]) => (a <= b ? { from: a, to: b } : { from: b, to: a }));
const body: fc.Arbitrary<Body> = fc.record({
  period,
  own_department_ids: fc.subarray([...departments, nil], { maxLength: 2 }),
  facility_type_ids: fc
    .constant(null)
    .chain(() => fc.subarray([...new Set(fx.referrals.map((r) => r.facility_type))], { maxLength: 1 })),
  tag_ids: fc.constantFrom<string[]>([], [tag], [randomUUID()]),
  limit: fc.integer({ min: 1, max: 7 }),
  prefectures: fc.constantFrom<string[]>([], [], ['22'], ['13'], ['01']),
  cities: fc.constantFrom<string[]>([], [], ['静岡市葵区', '新宿区'], ['浜松市中央区']),
});

const keeps = (
  b: Body,
  x: { own_department: string; facility_type: string; tags: string[]; prefecture_code: string; city: string },
) =>
  (!b.prefectures?.length || b.prefectures.includes(x.prefecture_code)) &&
  (!b.cities?.length || b.cities.includes(x.city)) &&
  (b.own_department_ids.length === 0 || b.own_department_ids.includes(x.own_department)) &&
  (b.facility_type_ids.length === 0 || b.facility_type_ids.includes(x.facility_type)) &&
  (b.tag_ids.length === 0 || b.tag_ids.some((t) => x.tags.includes(t)));
function counts(b: Body, range: DateRange, kind: 'referrals' | 'reverses') {
  const out = new Map<string, number>();
  for (const x of kind === 'referrals' ? fx.referrals : fx.reverses)
    if (x.date >= range.from && x.date <= range.to && keeps(b, x))
      out.set(x.institution, (out.get(x.institution) ?? 0) + 1);
  return out;
}
/** Competition ranking over scores compared in order, equals by name then id, cut at the limit. */
function ranked(scores: Map<string, number[]>, limit: number) {
  const cmp = (a: number[], b: number[]) => a.reduce((d, x, i) => d || b[i]! - x, 0);
  const rows = [...scores]
    .map(([id, score]) => ({ id, score, name: institutionName.get(id)! }))
    .sort((a, b) => cmp(a.score, b.score) || a.name.localeCompare(b.name, 'ja') || a.id.localeCompare(b.id));
  return rows.slice(0, limit).map((r) => ({ ...r, rank: rows.findIndex((o) => cmp(o.score, r.score) === 0) + 1 }));
}
const coveredValue = (b: DateRange, value: number, covered: DateRange) =>
  b.to < covered.from || b.from > covered.to ? null : value;

describe('rankings', () => {
  it('rank institutions by referrals in the period with per-年度 and per-month figures, as the facts do', async () => {
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom('annual', 'monthly', 'total_count'), async (b, kind) => {
        const res = await fx.post(`/api/data_analysis/ranking/referral/${kind}`, b);
        expect(res.statusCode).toBe(200);
        const range = b.period;
        const totals = counts(b, range, 'referrals');
        const expected = ranked(new Map([...totals].map(([id, n]) => [id, [n]])), b.limit);
        const unit = kind === 'annual' ? 'fiscal_year' : 'month';
        const buckets = kind === 'total_count' ? [] : bucketsOf(range, unit);
        expect(res.json()).toEqual({
          labels: buckets.map((x) => x.label),
          data: expected.map((r) => ({
            rank: r.rank,
            medical_institution: { id: r.id, name: r.name },
            total: r.score[0],
            values: buckets.map((x) => coveredValue(x, counts(b, x, 'referrals').get(r.id) ?? 0, fx.covered)),
          })),
        });
      }),
      { numRuns: 30 },
    );
  });

  it('both referrals: by referrals then reverse referrals, each per month', async () => {
    const reverseDates = fx.reverses.map((v) => v.date).sort();
    const reverseCovered = { from: reverseDates[0]!, to: reverseDates.at(-1)! };
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const res = await fx.post('/api/data_analysis/ranking/both_referrals/monthly', b);
        expect(res.statusCode).toBe(200);
        const range = b.period;
        const referrals = counts(b, range, 'referrals');
        const reverses = counts(b, range, 'reverses');
        const ids = new Set([...referrals.keys(), ...reverses.keys()]);
        const expected = ranked(
          new Map([...ids].map((id) => [id, [referrals.get(id) ?? 0, reverses.get(id) ?? 0]])),
          b.limit,
        );
        const buckets = bucketsOf(range, 'month');
        expect(res.json()).toEqual({
          labels: buckets.map((x) => x.label),
          data: expected.map((r) => ({
            rank: r.rank,
            medical_institution: { id: r.id, name: r.name },
            referral_total: r.score[0],
            reverse_referral_total: r.score[1],
            referral_values: buckets.map((x) => coveredValue(x, counts(b, x, 'referrals').get(r.id) ?? 0, fx.covered)),
            reverse_referral_values: buckets.map((x) =>
              coveredValue(x, counts(b, x, 'reverses').get(r.id) ?? 0, reverseCovered),
            ),
          })),
        });
      }),
      { numRuns: 20 },
    );
  });

  it('equal totals share a rank and the next rank skips', async () => {
    // Find a period in which two institutions tie, by the facts.
    for (let m = 0; m < 36; m++) {
      const from = new Date(Date.UTC(2023, 3 + m, 1)).toISOString().slice(0, 10);
      const p = { from, to: new Date(Date.UTC(2023, 4 + m, 0)).toISOString().slice(0, 10) };
      const b: Body = { period: p, own_department_ids: [], facility_type_ids: [], tag_ids: [], limit: 50 };
      const totals = [...counts(b, p, 'referrals').values()];
      if (new Set(totals).size === totals.length) continue;
      const res = await fx.post('/api/data_analysis/ranking/referral/total_count', b);
      const rows = res.json<{ data: { rank: number; total: number }[] }>().data;
      rows.forEach((r, i) => {
        if (i > 0 && rows[i - 1]!.total === r.total) expect(r.rank).toBe(rows[i - 1]!.rank);
        if (i > 0 && rows[i - 1]!.total !== r.total) expect(r.rank).toBe(i + 1);
      });
      return;
    }
    throw new Error('no month with a tie in the fixture');
  });

  it('never counts another tenant, refuses bad bodies (422) and tenants without data analysis (403)', async () => {
    const all = { period: { from: '2023-04-01', to: '2026-03-31' }, limit: 500 };
    const a = await fx.post('/api/data_analysis/ranking/referral/total_count', all);
    expect(a.json<{ data: { total: number }[] }>().data.reduce((n, r) => n + r.total, 0)).toBe(fx.referrals.length);
    const b = await fx.post('/api/data_analysis/ranking/referral/total_count', all, tenantB);
    const bTotal = b.json<{ data: { total: number }[] }>().data.reduce((n, r) => n + r.total, 0);
    expect(bTotal).toBeGreaterThan(0);
    expect(bTotal).toBeLessThan(fx.referrals.length);
    const bad = await fx.post('/api/data_analysis/ranking/referral/annual', {
      period: { from: '2024-04-01', to: 'x' },
      limit: 501,
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json<{ errors: { field: string }[] }>().errors.map((e) => e.field)).toEqual(
      expect.arrayContaining(['period.to', 'limit']),
    );
    const without = featureKeys.filter((k) => k !== 'data_analysis');
    for (const url of [
      'ranking/referral/annual',
      'ranking/referral/monthly',
      'ranking/referral/total_count',
      'ranking/both_referrals/monthly',
    ])
      expect((await fx.post(`/api/data_analysis/${url}`, all, undefined, without)).statusCode).toBe(403);
    expect(
      (
        await fx.post(
          '/api/data_analysis/effectiveness_verification/communications',
          { period: all.period, comparison_period: all.period },
          undefined,
          without,
        )
      ).statusCode,
    ).toBe(403);
  });
});

describe('data coverage', () => {
  it("answers the first and last day of the tenant's own referral and reverse referral data", async () => {
    const res = await fx.get('/api/data_analysis/data_coverage');
    expect(res.statusCode).toBe(200);
    // Every row counts, matched to an institution or not: the export reached that day.
    const { rows: reverse } = await sql<{ from: string; to: string }>`
      SELECT to_char(min(reverse_referral_date), 'YYYY-MM-DD') AS "from", to_char(max(reverse_referral_date), 'YYYY-MM-DD') AS "to"
        FROM rm.reverse_referrals WHERE tenant_id = ${tenantA}`.execute(fx.db.kysely);
    expect(reverse[0]!.to).not.toBeNull();
    expect(res.json()).toEqual({ referrals: fx.covered, reverse_referrals: reverse[0] });
    // Another tenant's data ends elsewhere; a tenant with none has none.
    const { rows } = await sql<{ to: string }>`
      SELECT to_char(max(referral_date), 'YYYY-MM-DD') AS "to" FROM rm.referrals WHERE tenant_id = ${tenantB}`.execute(
      fx.db.kysely,
    );
    expect((await fx.get('/api/data_analysis/data_coverage', tenantB)).json().referrals.to).toBe(rows[0]!.to);
    expect((await fx.get('/api/data_analysis/data_coverage', randomUUID())).json()).toEqual({
      referrals: null,
      reverse_referrals: null,
    });
    const without = featureKeys.filter((k) => k !== 'data_analysis');
    expect((await fx.get('/api/data_analysis/data_coverage', undefined, without)).statusCode).toBe(403);
  });
});

describe('effectiveness of communications', () => {
  it('compares the referrals of contacted institutions with the others, as the facts do', async () => {
    const { rows: communications } = await sql<{ institution: string; type: string; user_id: string; date: string }>`
      SELECT medical_institution_id AS institution, communication_type AS type, user_id, to_char(acted_date, 'YYYY-MM-DD') AS date
        FROM rm.communications`.execute(fx.db.kysely);
    expect(communications.length).toBe(40);
    const { rows: master } = await sql<{
      id: string;
      prefecture_code: string;
      city: string;
      facility_type: string;
      tags: string[];
    }>`
      SELECT m.id, lpad(m.prefecture_code::text, 2, '0') AS prefecture_code, m.city, m.facility_type_id::text AS facility_type,
             -- Only tenant A tags institutions in the fixture.
             array(SELECT t.tag_id::text FROM rm.mi_tags t WHERE t.medical_institution_id = m.id) AS tags
        FROM ref.medical_institutions m`.execute(fx.db.kysely);
    const area = new Map(master.map((m) => [m.id, m]));
    const facilityTypes = [...new Set(fx.referrals.map((r) => r.facility_type))];
    const rate = (now: number, before: number) => (before === 0 ? null : (now - before) / before);
    await fc.assert(
      fc.asyncProperty(
        period,
        period,
        fc.subarray(['visit', 'phone', 'new_visit', 'email'], { minLength: 1 }),
        fc.subarray(staff, { maxLength: 1 }),
        fc.subarray([...departments, nil], { maxLength: 2 }),
        fc.constantFrom<string[]>([], [], ['22'], ['13']),
        fc.constantFrom<string[]>([], [], ['静岡市葵区', '新宿区'], ['浜松市中央区']),
        fc.constant(null).chain(() => fc.subarray(facilityTypes, { maxLength: 1 })),
        fc.constantFrom<string[]>([], [], [tag], [randomUUID()]),
        async (p, comparison, types, users, own, prefectures, cities, facility_type_ids, tag_ids) => {
          const res = await fx.post('/api/data_analysis/effectiveness_verification/communications', {
            period: p,
            comparison_period: comparison,
            communication_types: types,
            user_ids: users,
            own_department_ids: own,
            facility_type_ids,
            tag_ids,
            prefectures,
            cities,
          });
          expect(res.statusCode).toBe(200);
          const inArea = (id: string) => {
            const x = area.get(id);
            return (
              (prefectures.length === 0 || (!!x && prefectures.includes(x.prefecture_code))) &&
              (cities.length === 0 || (!!x && cities.includes(x.city))) &&
              (facility_type_ids.length === 0 || (!!x && facility_type_ids.includes(x.facility_type))) &&
              (tag_ids.length === 0 || (!!x && tag_ids.some((t) => x.tags.includes(t))))
            );
          };
          const days = new Map<string, Set<string>>();
          for (const c of communications)
            if (
              inArea(c.institution) &&
              c.date >= p.from &&
              c.date <= p.to &&
              types.includes(c.type) &&
              (users.length === 0 || users.includes(c.user_id))
            )
              days.set(c.institution, (days.get(c.institution) ?? new Set()).add(c.date));
          const b: Body = {
            period: p,
            own_department_ids: own,
            facility_type_ids,
            tag_ids,
            limit: 1,
            prefectures,
            cities,
          };
          const now = counts(b, p, 'referrals');
          const before = counts(b, comparison, 'referrals');
          const sum = (m: Map<string, number>, contacted: boolean) =>
            [...m].reduce((n, [id, v]) => (days.has(id) === contacted ? n + v : n), 0);
          const answer = res.json<{
            data: {
              medical_institution: { id: string };
              communication_count: number;
              referral_count: number;
              comparison_referral_count: number;
              rate_of_referral_change: number | null;
            }[];
            summary: unknown;
          }>();
          expect(
            answer.data
              .map((d) => [
                d.medical_institution.id,
                d.communication_count,
                d.referral_count,
                d.comparison_referral_count,
                d.rate_of_referral_change,
              ])
              .sort(),
          ).toEqual(
            [...days]
              .map(([id, set]) => [
                id,
                set.size,
                now.get(id) ?? 0,
                before.get(id) ?? 0,
                rate(now.get(id) ?? 0, before.get(id) ?? 0),
              ])
              .sort(),
          );
          expect(answer.summary).toEqual({
            communicated_institution_count: days.size,
            referral_count: sum(now, true),
            comparison_referral_count: sum(before, true),
            communicated_referral_change_rate: rate(sum(now, true), sum(before, true)),
            non_communicated_referral_change_rate: rate(sum(now, false), sum(before, false)),
          });
        },
      ),
      { numRuns: 30 },
    );
    const bad = await fx.post('/api/data_analysis/effectiveness_verification/communications', {
      period: { from: '2024-04-01', to: '2024-05-01' },
      communication_types: ['walk'],
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json<{ errors: { field: string }[] }>().errors.map((e) => e.field)).toEqual(
      expect.arrayContaining(['comparison_period', 'communication_types.0']),
    );
  });
});
