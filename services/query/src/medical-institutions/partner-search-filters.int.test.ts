import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  institutions,
  startAnalysisFixture,
  tenantB,
  tenantC,
  type AnalysisFixture,
} from '../charts/analysis.testing.ts';

// The partner search filtered by the last visit (issue 11 §1) and by the referral figures of the requested
// periods (issue 12 §5): every filter is part of the WHERE, so the total and each page are those of the
// rows that pass, in the order asked for; the CSV export applies the same filters. The oracle is the raw
// facts (referrals and communications), not the rollups or the last-visit table the search reads.
let fx: AnalysisFixture;
/** Tenant A's visits (visit, new_visit) per institution, as days. */
let visits: Map<string, string[]>;
/** Tenant B's referral days per institution. */
let referralsOfB: { institution: string; date: string }[];
beforeAll(async () => {
  fx = await startAnalysisFixture();
  const { rows } = await sql<{ institution: string; date: string }>`
    SELECT medical_institution_id AS institution, to_char(acted_date, 'YYYY-MM-DD') AS date
      FROM rm.communications WHERE communication_type IN ('visit', 'new_visit') AND tenant_id <> ${tenantB}`.execute(
    fx.db.kysely,
  );
  visits = new Map();
  for (const r of rows) visits.set(r.institution, [...(visits.get(r.institution) ?? []), r.date]);
  const b = await sql<{ institution: string; date: string }>`
    SELECT medical_institution_id AS institution, to_char(referral_date, 'YYYY-MM-DD') AS date
      FROM rm.referrals WHERE tenant_id = ${tenantB} AND medical_institution_id IS NOT NULL`.execute(fx.db.kysely);
  referralsOfB = b.rows;
});
afterAll(() => fx?.close());

const url = '/api/medical_institutions/search_results';
const monthIndex = fc.integer({ min: 2023 * 12 + 3, max: 2026 * 12 + 2 });
const monthDay = (i: number, last: boolean) => {
  const [y, m] = [Math.floor(i / 12), (i % 12) + 1];
  const day = last ? new Date(Date.UTC(y, m, 0)).getUTCDate() : 1 + ((i * 7) % 28);
  return `${y}-${String(m).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
};
const period = fc
  .tuple(monthIndex, monthIndex)
  .map(([a, b]) => ({ from: monthDay(Math.min(a, b), false), to: monthDay(Math.max(a, b), true) }));
const dayOf = fc
  .integer({ min: 0, max: 800 })
  .map((n) => new Date(Date.UTC(2024, 3, 1 + n)).toISOString().slice(0, 10));

/** Referrals per institution over the whole months the period touches (as the rollups count them). */
function countOver(p: { from: string; to: string }, facts: readonly { institution: string; date: string }[]) {
  const [y, m] = [Number(p.to.slice(0, 4)), Number(p.to.slice(5, 7))];
  const [from, to] = [`${p.from.slice(0, 7)}-01`, new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10)];
  const out = new Map<string, number>();
  for (const r of facts) if (r.date >= from && r.date <= to) out.set(r.institution, (out.get(r.institution) ?? 0) + 1);
  return out;
}

interface Expected {
  id: string;
  referral_count: number;
  comparison_referral_count: number;
  rate: number | null;
}

function figures(
  p: { from: string; to: string },
  c: { from: string; to: string },
  facts: readonly { institution: string; date: string }[],
): Expected[] {
  const [n, m] = [countOver(p, facts), countOver(c, facts)];
  return institutions.map((id) => {
    const [a, b] = [n.get(id) ?? 0, m.get(id) ?? 0];
    return { id, referral_count: a, comparison_referral_count: b, rate: b ? (a - b) / b : null };
  });
}

interface Bounds {
  min_referral_count?: number;
  max_referral_count?: number;
  min_comparison_referral_count?: number;
  max_comparison_referral_count?: number;
  min_rate_of_referral_change?: number;
  max_rate_of_referral_change?: number;
}

function passes(r: Expected, f: Bounds): boolean {
  const within = (v: number, min?: number, max?: number) =>
    (min === undefined || v >= min) && (max === undefined || v <= max);
  if (!within(r.referral_count, f.min_referral_count, f.max_referral_count)) return false;
  if (!within(r.comparison_referral_count, f.min_comparison_referral_count, f.max_comparison_referral_count))
    return false;
  if (f.min_rate_of_referral_change !== undefined || f.max_rate_of_referral_change !== undefined) {
    const c = r.comparison_referral_count;
    if (c === 0) return false;
    // Integer arithmetic, as the bounds here are integers: no rounding at the boundary.
    const change = (r.referral_count - c) * 100;
    if (f.min_rate_of_referral_change !== undefined && change < f.min_rate_of_referral_change * c) return false;
    if (f.max_rate_of_referral_change !== undefined && change > f.max_rate_of_referral_change * c) return false;
  }
  return true;
}

function sortByRate(rows: Expected[], sort: 'asc' | 'desc') {
  const dir = sort === 'desc' ? -1 : 1;
  return [...rows].sort((x, y) => {
    const [a, b] = [x.rate, y.rate];
    if (a === null || b === null) return a === b ? dir * x.id.localeCompare(y.id) : a === null ? 1 : -1;
    return a !== b ? dir * (a - b) : dir * x.id.localeCompare(y.id);
  });
}

const optional = (arb: fc.Arbitrary<number>) => fc.option(arb, { nil: undefined });
const bounds: fc.Arbitrary<Bounds> = fc
  .record({
    min_referral_count: optional(fc.integer({ min: 0, max: 30 })),
    max_referral_count: optional(fc.integer({ min: 0, max: 60 })),
    min_comparison_referral_count: optional(fc.integer({ min: 0, max: 30 })),
    max_comparison_referral_count: optional(fc.integer({ min: 0, max: 60 })),
    min_rate_of_referral_change: optional(fc.integer({ min: -100, max: 100 })),
    max_rate_of_referral_change: optional(fc.integer({ min: -100, max: 300 })),
  })
  .map((b) => {
    // Keep every minimum at most its maximum (the contract refuses the other way round).
    const out: Bounds = {};
    for (const [k, v] of Object.entries(b)) if (v !== undefined) out[k as keyof Bounds] = v;
    for (const f of ['referral_count', 'comparison_referral_count', 'rate_of_referral_change'] as const) {
      const [min, max] = [out[`min_${f}`], out[`max_${f}`]];
      if (min !== undefined && max !== undefined && min > max) [out[`min_${f}`], out[`max_${f}`]] = [max, min];
    }
    return out;
  });

type Page = {
  data: { id: string; referral_count: number; comparison_referral_count: number }[];
  meta: { total_count: number };
};

describe('partner search filtered by referral figures', () => {
  it('keeps exactly the rows whose figures are in range, counted and paged after the filter, by referral change', async () => {
    await fc.assert(
      fc.asyncProperty(
        period,
        period,
        bounds,
        fc.constantFrom<'asc' | 'desc'>('asc', 'desc'),
        fc.integer({ min: 1, max: 3 }),
        async (p, c, f, sort, page) => {
          const perPage = 2;
          const res = await fx.post(url, {
            referral_period: p,
            comparison_referral_period: c,
            ...f,
            sort_by: 'rate_of_referral_change',
            sort,
            page,
            per_page: perPage,
          });
          expect(res.statusCode, res.body).toBe(200);
          const kept = sortByRate(
            figures(p, c, fx.referrals).filter((r) => passes(r, f)),
            sort,
          );
          const body = res.json<Page>();
          expect(body.meta.total_count).toBe(kept.length);
          expect(body.data.map((r) => [r.id, r.referral_count, r.comparison_referral_count])).toEqual(
            kept
              .slice((page - 1) * perPage, page * perPage)
              .map((r) => [r.id, r.referral_count, r.comparison_referral_count]),
          );
        },
      ),
      { numRuns: 40 },
    );
  });

  it('filters each figure on its own, in the default order too', async () => {
    const p = { from: '2024-04-01', to: '2025-03-31' };
    const c = { from: '2023-04-01', to: '2024-03-31' };
    const all = figures(p, c, fx.referrals);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const cases: Bounds[] = [
      { min_referral_count: median(all.map((r) => r.referral_count)) },
      { max_referral_count: median(all.map((r) => r.referral_count)) },
      { min_comparison_referral_count: median(all.map((r) => r.comparison_referral_count)) },
      { max_comparison_referral_count: median(all.map((r) => r.comparison_referral_count)) },
      { min_rate_of_referral_change: 0 },
      { max_rate_of_referral_change: 0 },
      { max_referral_count: 0 },
    ];
    for (const f of cases) {
      const res = await fx.post(url, { referral_period: p, comparison_referral_period: c, ...f, per_page: 100 });
      expect(res.statusCode, res.body).toBe(200);
      const expected = all.filter((r) => passes(r, f)).map((r) => r.id);
      expect(
        res
          .json<Page>()
          .data.map((r) => r.id)
          .sort(),
        JSON.stringify(f),
      ).toEqual(expected.sort());
      // Each case narrows to some rows and leaves some out, so it tests something.
      if (!('max_referral_count' in f && f.max_referral_count === 0)) {
        expect(expected.length, JSON.stringify(f)).toBeGreaterThan(0);
        expect(expected.length, JSON.stringify(f)).toBeLessThan(all.length);
      }
    }
  });

  it('a rate bound leaves out rows whose comparison count is 0 (no rate)', async () => {
    // A comparison period with no referrals at all: every rate is undefined.
    const res = await fx.post(url, {
      referral_period: { from: '2024-04-01', to: '2025-03-31' },
      comparison_referral_period: { from: '2019-04-01', to: '2020-03-31' },
      min_rate_of_referral_change: -100,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<Page>().meta.total_count).toBe(0);
    const unfiltered = await fx.post(url, {
      referral_period: { from: '2024-04-01', to: '2025-03-31' },
      comparison_referral_period: { from: '2019-04-01', to: '2020-03-31' },
    });
    expect(unfiltered.json<Page>().meta.total_count).toBe(institutions.length);
  });

  it('reads only the caller’s tenant', async () => {
    const p = { from: '2024-04-01', to: '2025-03-31' };
    const c = { from: '2023-04-01', to: '2024-03-31' };
    const f = { min_referral_count: 1 };
    const ofB = figures(p, c, referralsOfB).filter((r) => passes(r, f));
    const ofA = figures(p, c, fx.referrals).filter((r) => passes(r, f));
    const resB = await fx.post(
      url,
      { referral_period: p, comparison_referral_period: c, ...f, per_page: 100 },
      tenantB,
    );
    expect(resB.statusCode, resB.body).toBe(200);
    expect(
      resB
        .json<Page>()
        .data.map((r) => [r.id, r.referral_count])
        .sort(),
    ).toEqual(ofB.map((r) => [r.id, r.referral_count]).sort());
    // B's figures are not A's: the test would notice reading the other tenant's rollups.
    expect(ofB.map((r) => r.referral_count)).not.toEqual(ofA.map((r) => r.referral_count));
    const resC = await fx.post(url, { referral_period: p, comparison_referral_period: c, ...f }, tenantC);
    expect(resC.json<Page>().meta.total_count).toBe(0);
  });
});

describe('partner search filtered by the last visit', () => {
  const visitedWithin = (id: string, p: { from: string; to: string }) =>
    (visits.get(id) ?? []).some((d) => d >= p.from && d <= p.to);
  const notVisitedSince = (id: string, day: string) => !(visits.get(id) ?? []).some((d) => d >= day);

  it('keeps the institutions visited within the period and those not visited since a day', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(dayOf, dayOf).map(([a, b]) => (a <= b ? { from: a, to: b } : { from: b, to: a })),
        fc.option(dayOf, { nil: undefined }),
        fc.constantFrom('last_visit_date', 'kana'),
        async (p, since, sortBy) => {
          const res = await fx.post(url, {
            visited_period: p,
            ...(since ? { not_visited_since: since } : {}),
            sort_by: sortBy,
            per_page: 100,
          });
          expect(res.statusCode, res.body).toBe(200);
          const expected = institutions.filter((id) => visitedWithin(id, p) && (!since || notVisitedSince(id, since)));
          const body = res.json<Page>();
          expect(body.meta.total_count).toBe(expected.length);
          expect(body.data.map((r) => r.id).sort()).toEqual([...expected].sort());
        },
      ),
      { numRuns: 40 },
    );
  });

  it('finds a visit inside the period when the last visit is after it', async () => {
    // An institution with two visits: a period around the earlier one only.
    const [id, days] = [...visits].find(([, d]) => new Set(d).size >= 2)!;
    const sorted = [...new Set(days)].sort();
    const p = { from: sorted[0]!, to: sorted[0]! };
    const res = await fx.post(url, { visited_period: p, per_page: 100 });
    expect(res.json<Page>().data.map((r) => r.id)).toContain(id);
  });

  it('counts never-visited institutions as not visited since any day', async () => {
    const res = await fx.post(url, { not_visited_since: '2000-01-01', per_page: 100 });
    const never = institutions.filter((id) => !visits.has(id));
    expect(never.length).toBeGreaterThan(0);
    expect(
      res
        .json<Page>()
        .data.map((r) => r.id)
        .sort(),
    ).toEqual([...never].sort());
    // Tenant B has logged no visit: every institution is "not visited since".
    const b = await fx.post(url, { not_visited_since: '2000-01-01', per_page: 100 }, tenantB);
    expect(b.json<Page>().meta.total_count).toBe(institutions.length);
    const bVisited = await fx.post(url, { visited_period: { from: '2000-01-01', to: '2099-12-31' } }, tenantB);
    expect(bVisited.json<Page>().meta.total_count).toBe(0);
  });
});

describe('partner search filter input', () => {
  const p = { from: '2024-04-01', to: '2025-03-31' };
  const refused = async (body: object, field: string) => {
    const res = await fx.post(url, body);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json<{ errors: { field: string }[] }>().errors.map((e) => e.field)).toContain(field);
    const csv = await fx.post(`${url}/export`, body);
    expect(csv.statusCode, csv.body).toBe(422);
  };

  it('refuses an integer label bound no stored integer can have (it used to reach Postgres as an error)', async () => {
    const label = '7b0c8f4e-4a43-4a39-9d4f-2d4a6f0f2e11';
    await refused({ label_filters: [{ label_id: label, integer_min: 3_000_000_000 }] }, 'label_filters.0.integer_min');
    await refused({ label_filters: [{ label_id: label, integer_max: -3_000_000_000 }] }, 'label_filters.0.integer_max');
  });

  it('refuses a minimum above its maximum, negative counts, bad dates and a figure without its period', async () => {
    const both = { referral_period: p, comparison_referral_period: p };
    await refused({ ...both, min_referral_count: 5, max_referral_count: 4 }, 'max_referral_count');
    await refused(
      { ...both, min_comparison_referral_count: 2, max_comparison_referral_count: 1 },
      'max_comparison_referral_count',
    );
    await refused(
      { ...both, min_rate_of_referral_change: 10, max_rate_of_referral_change: -10 },
      'max_rate_of_referral_change',
    );
    await refused({ ...both, min_referral_count: -1 }, 'min_referral_count');
    await refused({ ...both, max_comparison_referral_count: -3 }, 'max_comparison_referral_count');
    await refused({ ...both, min_referral_count: 1.5 }, 'min_referral_count');
    await refused({ ...both, min_rate_of_referral_change: -101 }, 'min_rate_of_referral_change');
    await refused({ ...both, min_referral_count: 'x' }, 'min_referral_count');
    await refused({ not_visited_since: '2025-02-30' }, 'not_visited_since');
    await refused({ not_visited_since: '2025/01/01' }, 'not_visited_since');
    await refused({ visited_period: { from: '2025-02-01', to: '2025-01-01' } }, 'visited_period.to');
    await refused({ visited_period: { from: 'x', to: '2025-01-01' } }, 'visited_period.from');
    await refused({ min_referral_count: 1 }, 'min_referral_count');
    await refused({ comparison_referral_period: p, max_referral_count: 1 }, 'max_referral_count');
    await refused({ referral_period: p, min_comparison_referral_count: 1 }, 'min_comparison_referral_count');
    await refused({ referral_period: p, max_rate_of_referral_change: 1 }, 'max_rate_of_referral_change');
    await refused({ comparison_referral_period: p, min_rate_of_referral_change: 1 }, 'min_rate_of_referral_change');
  });

  it('accepts a body without the new filters as before', async () => {
    const res = await fx.post(url, {});
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<Page>().meta.total_count).toBe(institutions.length);
  });
});

describe('partner search CSV export', () => {
  it('exports the rows the same filters keep', async () => {
    const p = { from: '2024-04-01', to: '2025-03-31' };
    const c = { from: '2023-04-01', to: '2024-03-31' };
    const f = { min_referral_count: 1, max_rate_of_referral_change: 50 };
    const since = '2025-06-01';
    const body = { referral_period: p, comparison_referral_period: c, ...f, not_visited_since: since };
    const res = await fx.post(`${url}/export`, { ...body, columns: ['name', 'referral_count'] });
    expect(res.statusCode, res.body).toBe(200);
    const lines = res.body
      .replace(/^\ufeff/, '')
      .trim()
      .split('\r\n')
      .slice(1);
    const search = await fx.post(url, { ...body, per_page: 100 });
    const found = search.json<{ data: { id: string; name: string; referral_count: number }[] }>().data;
    const expected = figures(p, c, fx.referrals).filter(
      (r) => passes(r, f) && !(visits.get(r.id) ?? []).some((d) => d >= since),
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(institutions.length);
    expect(found.map((r) => r.id).sort()).toEqual(expected.map((r) => r.id).sort());
    expect(lines).toEqual(found.map((r) => `${r.name},${r.referral_count}`));
    // The change rate reads in percent with one decimal, as on screen; blank without a comparison base.
    const rates = await fx.post(`${url}/export`, { ...body, columns: ['name', 'rate_of_referral_change'] });
    const rateLines = rates.body
      .replace(/^\ufeff/, '')
      .trim()
      .split('\r\n');
    expect(rateLines[0]).toBe('名称,紹介数の増減率(%)');
    const percent = (r: { rate_of_referral_change: number | null }) =>
      r.rate_of_referral_change === null ? '' : String(Math.round(r.rate_of_referral_change * 1000) / 10);
    const withRates = search.json<{ data: { name: string; rate_of_referral_change: number | null }[] }>().data;
    expect(rateLines.slice(1)).toEqual(withRates.map((r) => `${r.name},${percent(r)}`));
    expect(withRates.some((r) => r.rate_of_referral_change !== null && r.rate_of_referral_change !== 0)).toBe(true);
    const all = await fx.post(`${url}/export`, {
      referral_period: p,
      comparison_referral_period: c,
      columns: ['name'],
    });
    expect(all.body.trim().split('\r\n').length - 1).toBe(institutions.length);
  });
});
