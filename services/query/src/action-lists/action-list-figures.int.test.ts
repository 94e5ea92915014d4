import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { institutions, startAnalysisFixture, tenantA, type AnalysisFixture } from '../charts/analysis.testing.ts';

// An action list's institutions carry the partner search's referral figures and last visit (an addition
// to the spec): a list of referrers to win back is read by who stopped and when they were last seen. The
// figures must be the facts' counts over the whole months each period touches, the search's own figures
// for the same periods, and this tenant's only (tenant B has referrals from the same institutions).
let fx: AnalysisFixture;
const listId = randomUUID();

beforeAll(async () => {
  fx = await startAnalysisFixture();
  // The list as the action-lists projection keeps it: its figures are what is under test, not its events.
  const now = new Date('2025-06-01T00:00:00Z');
  await sql`INSERT INTO rm.action_lists (tenant_id, id, name, status, medical_institution_count, actioned_count,
                                         created_by, version, created_at, updated_at)
            VALUES (${tenantA}, ${listId}, '紹介減少先フォロー', 'in_progress', ${institutions.length}, 0, NULL, 1, ${now}, ${now})`.execute(
    fx.db.kysely,
  );
  for (const [i, id] of institutions.entries())
    await sql`INSERT INTO rm.action_list_items (tenant_id, action_list_id, medical_institution_id, status, updated_by,
                                                updated_at, added_at, revision)
              VALUES (${tenantA}, ${listId}, ${id}, 'not_actioned', NULL, ${now}, ${new Date(now.getTime() + i)}, 1)`.execute(
      fx.db.kysely,
    );
});
afterAll(() => fx?.close());

function countOver(p: { from: string; to: string }) {
  const [y, m] = [Number(p.to.slice(0, 4)), Number(p.to.slice(5, 7))];
  const [from, to] = [`${p.from.slice(0, 7)}-01`, new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10)];
  const out = new Map<string, number>();
  for (const r of fx.referrals)
    if (r.date >= from && r.date <= to) out.set(r.institution, (out.get(r.institution) ?? 0) + 1);
  return out;
}

interface Figures {
  id: string;
  referral_count: number | null;
  comparison_referral_count: number | null;
  rate_of_referral_change: number | null;
  last_visit_date: string | null;
}

const periodQuery = (p: { from: string; to: string }, c: { from: string; to: string }) =>
  `referral_period[from]=${p.from}&referral_period[to]=${p.to}` +
  `&comparison_referral_period[from]=${c.from}&comparison_referral_period[to]=${c.to}`;

describe("an action list's referral figures", () => {
  const cases = [
    // 今年度 to a day against the same days a year before (the screen's default), a whole 年度, and
    // periods that are no rollup row of their own.
    [
      { from: '2025-04-01', to: '2025-08-17' },
      { from: '2024-04-01', to: '2024-08-17' },
    ],
    [
      { from: '2024-04-01', to: '2025-03-31' },
      { from: '2023-04-01', to: '2024-03-31' },
    ],
    [
      { from: '2024-02-10', to: '2025-01-20' },
      { from: '2023-02-01', to: '2024-01-31' },
    ],
  ] as const;

  it.each(cases)('are the facts and the search counts for %o against %o', async (p, c) => {
    const res = await fx.get(`/api/action_lists/${listId}/medical_institutions?per_page=100&${periodQuery(p, c)}`);
    expect(res.statusCode, res.body).toBe(200);
    const listed: Figures[] = res
      .json<{ data: { medical_institution: Figures }[] }>()
      .data.map(({ medical_institution: mi }) => ({
        id: mi.id,
        referral_count: mi.referral_count,
        comparison_referral_count: mi.comparison_referral_count,
        rate_of_referral_change: mi.rate_of_referral_change,
        last_visit_date: mi.last_visit_date,
      }));

    const [n, m] = [countOver(p), countOver(c)];
    expect(
      listed.map(({ id, referral_count, comparison_referral_count }) => ({
        id,
        referral_count,
        comparison_referral_count,
      })),
    ).toEqual(
      institutions.map((id) => ({ id, referral_count: n.get(id) ?? 0, comparison_referral_count: m.get(id) ?? 0 })),
    );
    // Some institution referred in both periods, so the rate is tested on a number, not only on nulls.
    expect(listed.some((f) => f.rate_of_referral_change !== null)).toBe(true);
    expect(listed.some((f) => f.last_visit_date !== null)).toBe(true);

    const search = await fx.post('/api/medical_institutions/search_results', {
      referral_period: p,
      comparison_referral_period: c,
      sort_by: 'name',
      sort: 'asc',
      per_page: 100,
    });
    expect(search.statusCode, search.body).toBe(200);
    const searched = new Map(search.json<{ data: Figures[] }>().data.map((r) => [r.id, r]));
    for (const f of listed) {
      const s = searched.get(f.id)!;
      expect(f).toEqual({
        id: s.id,
        referral_count: s.referral_count,
        comparison_referral_count: s.comparison_referral_count,
        rate_of_referral_change: s.rate_of_referral_change,
        last_visit_date: s.last_visit_date,
      });
    }
  });

  it('leaves the counts empty without periods, and refuses a period that ends before it starts', async () => {
    const res = await fx.get(`/api/action_lists/${listId}/medical_institutions`);
    expect(res.statusCode, res.body).toBe(200);
    for (const { medical_institution: mi } of res.json<{ data: { medical_institution: Figures }[] }>().data)
      expect([mi.referral_count, mi.comparison_referral_count, mi.rate_of_referral_change]).toEqual([null, null, null]);
    const bad = await fx.get(
      `/api/action_lists/${listId}/medical_institutions?referral_period[from]=2025-05-01&referral_period[to]=2025-04-01`,
    );
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].message).toBe('終了日は開始日以降の日付を指定してください');
  });

  it('writes the figures into the CSV, in percent as the partner search export does', async () => {
    const [p, c] = cases[1];
    const res = await fx.get(`/api/action_lists/${listId}/medical_institutions/export?${periodQuery(p, c)}`);
    expect(res.statusCode, res.body).toBe(200);
    const lines = res.body
      .replace(/^\ufeff/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe(
      '医療機関ID,医療機関名,住所,電話番号,運営状況,紹介数,比較期間の紹介数,紹介数の増減率(%),最終訪問日,対応状況,更新者,更新日時',
    );
    const listed = await fx.get(`/api/action_lists/${listId}/medical_institutions?per_page=100&${periodQuery(p, c)}`);
    const items = listed.json<{ data: { medical_institution: Figures }[] }>().data;
    expect(lines).toHaveLength(items.length + 1);
    for (const [i, { medical_institution: mi }] of items.entries()) {
      const cells = lines[i + 1]!.split(',');
      expect(cells[0]).toBe(mi.id);
      const rate =
        mi.rate_of_referral_change === null ? '' : String(Math.round(mi.rate_of_referral_change * 1000) / 10);
      // A fall is written as a number (-33.3), not neutralised as a formula ('-33.3).
      expect(cells.slice(5, 9)).toEqual([
        String(mi.referral_count),
        String(mi.comparison_referral_count),
        rate,
        mi.last_visit_date ?? '',
      ]);
    }
  });
});
