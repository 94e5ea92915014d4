import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DateRange } from '@renkei/domain';
import { institutionName, startAnalysisFixture, tag, type AnalysisFixture } from '../charts/analysis.testing.ts';

// The rankings whose top rows are found from the 年度 and 年度-to-month bounds (`prunedTop`): no own department filter,
// a period inside one or two 年度, a limit below the number of institutions, so the bound, the cut and
// the candidates decide the answer; it must be the facts' ranking, ties included.
let fx: AnalysisFixture;
beforeAll(async () => {
  fx = await startAnalysisFixture();
});
afterAll(() => fx?.close());

interface Body {
  period: DateRange;
  facility_type_ids: string[];
  tag_ids: string[];
  limit: number;
  prefectures?: string[];
}
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const period = fc
  .tuple(fc.integer({ min: Date.UTC(2023, 3, 1), max: Date.UTC(2025, 11, 31) }), fc.integer({ min: 0, max: 480 }))
  .map(([from, days]) => ({ from: day(from), to: day(from + days * 86_400_000) }));
// A whole 年度 is answered from its rows alone (ties across the cut included).
const fiscalYear = fc.integer({ min: 2023, max: 2025 }).map((y) => ({ from: `${y}-04-01`, to: `${y + 1}-03-31` }));
// 年度 to date, the page's default: from April to any day of the 年度 (the 年度-to-month bounds).
const fromApril = fc
  .tuple(fc.integer({ min: 2023, max: 2025 }), fc.integer({ min: 0, max: 364 }))
  .map(([y, days]) => ({ from: `${y}-04-01`, to: day(Date.UTC(y, 3, 1) + days * 86_400_000) }));
const body: fc.Arbitrary<Body> = fc.record({
  period: fc.oneof(period, fiscalYear, fromApril, fromApril),
  facility_type_ids: fc
    .constant(null)
    .chain(() => fc.subarray([...new Set(fx.referrals.map((r) => r.facility_type))], { maxLength: 1 })),
  tag_ids: fc.constantFrom<string[]>([], [], [tag], [randomUUID()]),
  limit: fc.integer({ min: 1, max: 4 }),
  prefectures: fc.constantFrom<string[]>([], [], ['22'], ['13']),
});
const keeps = (b: Body, x: { facility_type: string; tags: string[]; prefecture_code: string }) =>
  (!b.prefectures?.length || b.prefectures.includes(x.prefecture_code)) &&
  (b.facility_type_ids.length === 0 || b.facility_type_ids.includes(x.facility_type)) &&
  (b.tag_ids.length === 0 || b.tag_ids.some((t) => x.tags.includes(t)));
function counts(b: Body, kind: 'referrals' | 'reverses') {
  const out = new Map<string, number>();
  for (const x of kind === 'referrals' ? fx.referrals : fx.reverses)
    if (x.date >= b.period.from && x.date <= b.period.to && keeps(b, x))
      out.set(x.institution, (out.get(x.institution) ?? 0) + 1);
  return out;
}
function ranked(scores: Map<string, number[]>, limit: number) {
  const cmp = (a: number[], b: number[]) => a.reduce((d, x, i) => d || b[i]! - x, 0);
  const rows = [...scores]
    .map(([id, score]) => ({ id, score, name: institutionName.get(id)! }))
    .sort((a, b) => cmp(a.score, b.score) || a.name.localeCompare(b.name, 'ja') || a.id.localeCompare(b.id));
  return rows
    .slice(0, limit)
    .map((r) => ({ id: r.id, score: r.score, rank: rows.findIndex((o) => cmp(o.score, r.score) === 0) + 1 }));
}

describe('rankings from the 年度 bounds', () => {
  it('rank by referrals as the facts do, ties included', async () => {
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const res = await fx.post('/api/data_analysis/ranking/referral/total_count', b);
        expect(res.statusCode).toBe(200);
        const expected = ranked(new Map([...counts(b, 'referrals')].map(([id, n]) => [id, [n]])), b.limit);
        const rows = res.json<{ data: { rank: number; total: number; medical_institution: { id: string } }[] }>().data;
        expect(rows.map((r) => ({ id: r.medical_institution.id, score: [r.total], rank: r.rank }))).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });

  it('rank by referrals then reverse referrals as the facts do', async () => {
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const res = await fx.post('/api/data_analysis/ranking/both_referrals/monthly', b);
        expect(res.statusCode).toBe(200);
        const referrals = counts(b, 'referrals');
        const reverses = counts(b, 'reverses');
        const ids = new Set([...referrals.keys(), ...reverses.keys()]);
        const expected = ranked(
          new Map([...ids].map((id) => [id, [referrals.get(id) ?? 0, reverses.get(id) ?? 0]])),
          b.limit,
        );
        const rows = res.json<{
          data: {
            rank: number;
            referral_total: number;
            reverse_referral_total: number;
            medical_institution: { id: string };
          }[];
        }>().data;
        expect(
          rows.map((r) => ({
            id: r.medical_institution.id,
            score: [r.referral_total, r.reverse_referral_total],
            rank: r.rank,
          })),
        ).toEqual(expected);
      }),
      { numRuns: 40 },
    );
  });
});
