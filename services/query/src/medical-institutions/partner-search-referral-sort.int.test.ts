import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { institutions, startAnalysisFixture, type AnalysisFixture } from '../charts/analysis.testing.ts';

// The partner search ordered by a referral figure (issue 12 §5): each period's figure of every
// institution read from the per-institution rollups — one row per institution for a 年度 or months from
// April (年度-to-month totals), summed pieces otherwise — must be the facts' count over the whole months
// the period touches, and the order the figures' order (nulls last, then the id).
let fx: AnalysisFixture;
beforeAll(async () => {
  fx = await startAnalysisFixture();
});
afterAll(() => fx?.close());

const monthIndex = fc.integer({ min: 2023 * 12 + 1, max: 2026 * 12 + 3 });
const monthDay = (i: number, last: boolean) => {
  const [y, m] = [Math.floor(i / 12), (i % 12) + 1];
  const day = last ? new Date(Date.UTC(y, m, 0)).getUTCDate() : 1 + ((i * 7) % 28);
  return `${y}-${String(m).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
};
const anyPeriod = fc
  .tuple(monthIndex, monthIndex)
  .map(([a, b]) => ({ from: monthDay(Math.min(a, b), false), to: monthDay(Math.max(a, b), true) }));
// The single-row periods: a whole 年度, and April to a month of the same 年度 (to any day of it).
const fromApril = fc
  .tuple(fc.integer({ min: 2023, max: 2025 }), fc.integer({ min: 0, max: 11 }), fc.boolean())
  .map(([y, months, last]) => ({ from: `${y}-04-01`, to: monthDay(y * 12 + 3 + months, last) }));
const period = fc.oneof(anyPeriod, fromApril, fromApril);

function countOver(p: { from: string; to: string }) {
  // The whole months the period touches.
  const [y, m] = [Number(p.to.slice(0, 4)), Number(p.to.slice(5, 7))];
  const [from, to] = [`${p.from.slice(0, 7)}-01`, new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10)];
  const out = new Map<string, number>();
  for (const r of fx.referrals)
    if (r.date >= from && r.date <= to) out.set(r.institution, (out.get(r.institution) ?? 0) + 1);
  return out;
}

describe('partner search ordered by referral figures', () => {
  it('counts and orders as the facts do', async () => {
    await fc.assert(
      fc.asyncProperty(
        period,
        period,
        fc.constantFrom('rate_of_referral_change', 'referral_count', 'comparison_referral_count'),
        fc.constantFrom<'asc' | 'desc'>('asc', 'desc'),
        async (p, c, sortBy, sort) => {
          const res = await fx.post('/api/medical_institutions/search_results', {
            referral_period: p,
            comparison_referral_period: c,
            sort_by: sortBy,
            sort,
            per_page: 100,
          });
          expect(res.statusCode, res.body).toBe(200);
          const [n, m] = [countOver(p), countOver(c)];
          const expected = institutions.map((id) => {
            const [a, b] = [n.get(id) ?? 0, m.get(id) ?? 0];
            return {
              id,
              referral_count: a,
              comparison_referral_count: b,
              rate_of_referral_change: b ? (a - b) / b : null,
            };
          });
          const key = (r: (typeof expected)[number]) => r[sortBy as keyof typeof r] as number | null;
          const dir = sort === 'desc' ? -1 : 1;
          expected.sort((x, y) => {
            const [a, b] = [key(x), key(y)];
            if (a === null || b === null) return a === b ? dir * x.id.localeCompare(y.id) : a === null ? 1 : -1;
            return a !== b ? dir * (a - b) : dir * x.id.localeCompare(y.id);
          });
          const rows = res.json<{
            data: { id: string; referral_count: number; comparison_referral_count: number }[];
          }>();
          expect(
            rows.data.map((r) => ({
              id: r.id,
              referral_count: r.referral_count,
              comparison_referral_count: r.comparison_referral_count,
            })),
          ).toEqual(
            expected.map(({ id, referral_count, comparison_referral_count }) => ({
              id,
              referral_count,
              comparison_referral_count,
            })),
          );
        },
      ),
      { numRuns: 40 },
    );
  });
});
