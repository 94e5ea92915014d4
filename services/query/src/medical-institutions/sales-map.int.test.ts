import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  departments,
  institutionName,
  institutions,
  startAnalysisFixture,
  tag,
  tenantB,
  type AnalysisFixture,
} from '../charts/analysis.testing.ts';

// The sales map (POST /medical_institutions/search_for_sales_map_results): institutions with coordinates
// in the visible rectangle, narrowed by the partner search's filters, with the referral figures of the
// rollups and the visits of the period; biggest referrers first. The oracle is the raw facts.
const url = '/api/medical_institutions/search_for_sales_map_results';
const period = { from: '2024-04-01', to: '2025-03-31' };
/** Institution 5 (沼津記念病院, tagged) has no coordinates and is never on the map. */
const coordinates: [number, number][] = [
  [34.97, 138.38],
  [34.96, 138.39],
  [34.71, 137.73],
  [35.69, 139.69],
  [35.61, 139.73],
];
const tokyo = { north: 36, south: 35.5, east: 140, west: 139.5 };

let fx: AnalysisFixture;
/** Tenant A's visits (visit, new_visit) per institution, as days. */
const visits = new Map<string, string[]>();
beforeAll(async () => {
  fx = await startAnalysisFixture();
  for (const [i, [lat, lng]] of coordinates.entries())
    await sql`UPDATE ref.medical_institutions SET latitude = ${lat}, longitude = ${lng} WHERE id = ${institutions[i]!}`.execute(
      fx.db.kysely,
    );
  await sql`UPDATE ref.medical_institutions SET latitude = NULL, longitude = NULL WHERE id = ${institutions[5]!}`.execute(
    fx.db.kysely,
  );
  const { rows } = await sql<{ institution: string; date: string }>`
    SELECT medical_institution_id AS institution, to_char(acted_date, 'YYYY-MM-DD') AS date
      FROM rm.communications WHERE communication_type IN ('visit', 'new_visit') AND tenant_id <> ${tenantB}`.execute(
    fx.db.kysely,
  );
  for (const r of rows) visits.set(r.institution, [...(visits.get(r.institution) ?? []), r.date]);
});
afterAll(() => fx?.close());

interface Row {
  id: string;
  name: string;
  latitude: number;
  longitude: number;
  tags: { id: string }[];
  referral_count: number | null;
  visit_count: number | null;
  last_visit_date: string | null;
}
type Page = { data: Row[]; meta: { total_count: number; per_page: number; total_pages: number } };

async function search(body: object, tenantId?: string): Promise<Page> {
  const res = await fx.post(url, body, tenantId);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Page;
}

/** Tenant A's referrals over the whole months of the period (as the rollups count them). */
function referralCounts(ownDepartments?: string[]) {
  const out = new Map<string, number>();
  for (const r of fx.referrals)
    if (r.date >= period.from && r.date <= period.to && (!ownDepartments || ownDepartments.includes(r.own_department)))
      out.set(r.institution, (out.get(r.institution) ?? 0) + 1);
  return out;
}

/** The map's order: referral count descending, then name (then id). */
function expectedOrder(ids: string[], counts: Map<string, number>) {
  return [...ids].sort((a, b) => {
    const d = (counts.get(b) ?? 0) - (counts.get(a) ?? 0);
    if (d) return d;
    const [x, y] = [institutionName.get(a)!, institutionName.get(b)!];
    return x < y ? -1 : x > y ? 1 : a < b ? -1 : 1;
  });
}

const mapped = institutions.slice(0, 5);
const visitsIn = (id: string) => (visits.get(id) ?? []).filter((d) => d >= period.from && d <= period.to).length;

describe('sales map search', () => {
  it('lists the institutions with coordinates, biggest referrers first, with the period figures', async () => {
    const counts = referralCounts();
    const page = await search({ referral_settings: { period }, visits: { period } });
    expect(page.meta.total_count).toBe(5);
    expect(page.data.map((r) => r.id)).toEqual(expectedOrder(mapped, counts));
    for (const r of page.data) {
      expect(r.referral_count).toBe(counts.get(r.id) ?? 0);
      expect(r.visit_count).toBe(visitsIn(r.id));
      const last = (visits.get(r.id) ?? []).sort().at(-1) ?? null;
      expect(r.last_visit_date).toBe(last);
      expect([r.latitude, r.longitude]).toEqual(coordinates[institutions.indexOf(r.id)]);
    }
    // Referral and visit figures are null without their periods; names order the rows then.
    const bare = await search({});
    expect(bare.data.map((r) => [r.referral_count, r.visit_count])).toEqual(mapped.map(() => [null, null]));
    expect(bare.data.map((r) => r.name)).toEqual(mapped.map((id) => institutionName.get(id)!).sort());
  });

  it('keeps only the institutions inside the bounds', async () => {
    const page = await search({ bounds: tokyo });
    expect(page.data.map((r) => r.id).sort()).toEqual([institutions[3], institutions[4]].sort());
    const none = await search({ bounds: { north: 10, south: 0, east: 10, west: 0 } });
    expect(none.meta.total_count).toBe(0);
  });

  it('filters by facility type, tag, referral range, own departments and visits', async () => {
    const { rows: types } = await sql<{ id: string; facility_type_id: number }>`
      SELECT id, facility_type_id FROM ref.medical_institutions`.execute(fx.db.kysely);
    const typeOf = new Map(types.map((t) => [t.id, t.facility_type_id]));
    const clinicType = typeOf.get(institutions[0]!)!;
    const clinicIds = mapped.filter((id) => typeOf.get(id) === clinicType);
    expect(clinicIds.length).toBeGreaterThan(0);
    expect(clinicIds.length).toBeLessThan(mapped.length);
    const clinics = await search({ facility_type_ids: [String(clinicType).padStart(2, '0')] });
    expect(clinics.data.map((r) => r.id).sort()).toEqual(clinicIds.sort());

    // The tag is on institutions 0, 2 and 5; 5 has no coordinates.
    const tagged = await search({ tag_ids: [tag] });
    expect(tagged.data.map((r) => r.id).sort()).toEqual([institutions[0], institutions[2]].sort());

    const counts = referralCounts();
    const values = [...new Set(mapped.map((id) => counts.get(id) ?? 0))].sort((a, b) => a - b);
    const [min, max] = [values[1]!, values.at(-1)!];
    const ranged = await search({ referral_settings: { period, min_referral_count: min, max_referral_count: max } });
    const inRange = mapped.filter((id) => (counts.get(id) ?? 0) >= min && (counts.get(id) ?? 0) <= max);
    expect(ranged.data.map((r) => r.id)).toEqual(expectedOrder(inRange, counts));

    const own = referralCounts([departments[0]!]);
    const byDepartment = await search({ referral_settings: { period, own_department_ids: [departments[0]] } });
    expect(byDepartment.data.map((r) => [r.id, r.referral_count])).toEqual(
      expectedOrder(mapped, own).map((id) => [id, own.get(id) ?? 0]),
    );

    const returned = await search({ visits: { period, visit: 'return_visit' } });
    const first = await search({ visits: { period, visit: 'first_visit' } });
    const visited = mapped.filter((id) => visitsIn(id) > 0);
    expect(visited.length).toBeGreaterThan(0);
    expect(visited.length).toBeLessThan(mapped.length);
    expect(returned.data.map((r) => r.id).sort()).toEqual([...visited].sort());
    expect(first.data.map((r) => r.id).sort()).toEqual(mapped.filter((id) => !visited.includes(id)).sort());
    const everVisited = await search({ visits: { visit: 'return_visit' } });
    expect(everVisited.data.map((r) => r.id).sort()).toEqual(mapped.filter((id) => visits.has(id)).sort());
  });

  it('pages in the same order', async () => {
    const all = await search({ referral_settings: { period } });
    const pages = [1, 2, 3].map((page) => search({ referral_settings: { period }, per_page: 2, page }));
    const ids = (await Promise.all(pages)).flatMap((p) => p.data.map((r) => r.id));
    expect(ids).toEqual(all.data.map((r) => r.id));
    expect(all.meta.per_page).toBe(500);
  });

  it("never lets another tenant's tags, label values or referrals count", async () => {
    // Tenant B has no tags: tenant A's tag id selects nothing for it.
    expect((await search({ tag_ids: [tag] }, tenantB)).meta.total_count).toBe(0);
    // A label value of tenant A does not satisfy tenant B's filter on the same label id.
    const label = randomUUID();
    await sql`INSERT INTO rm.mi_label_values (tenant_id, medical_institution_id, label_id, integer_value, selection_ids)
              SELECT tenant_id, ${institutions[1]!}, ${label}, 5, '{}' FROM rm.mi_tags WHERE tag_id = ${tag} LIMIT 1`.execute(
      fx.db.kysely,
    );
    const labelled = { labels: [{ label_id: label, integer_min: 1 }] };
    expect((await search(labelled)).data.map((r) => r.id)).toEqual([institutions[1]]);
    expect((await search(labelled, tenantB)).meta.total_count).toBe(0);
    // Tenant B's figures are its own referrals only.
    const { rows } = await sql<{ institution: string; n: number }>`
      SELECT medical_institution_id AS institution, count(*)::int AS n FROM rm.referrals
       WHERE tenant_id = ${tenantB} AND referral_date BETWEEN ${period.from}::date AND ${period.to}::date
         AND medical_institution_id IS NOT NULL GROUP BY 1`.execute(fx.db.kysely);
    const ofB = new Map(rows.map((r) => [r.institution, r.n]));
    const b = await search({ referral_settings: { period }, visits: { period } }, tenantB);
    expect(b.data.map((r) => [r.id, r.referral_count, r.visit_count])).toEqual(
      expectedOrder(mapped, ofB).map((id) => [id, ofB.get(id) ?? 0, 0]),
    );
  });

  it('answers bounds beyond any count without an error', async () => {
    const huge = 3_000_000_000;
    expect((await search({ referral_settings: { period, min_referral_count: huge } })).meta.total_count).toBe(0);
    expect((await search({ referral_settings: { period, max_referral_count: huge } })).meta.total_count).toBe(5);
    expect(
      (await search({ referral_settings: { period, own_department_ids: [departments[0]], min_referral_count: huge } }))
        .meta.total_count,
    ).toBe(0);
  });

  it('refuses bad bounds and sizes with 422 naming the field', async () => {
    for (const [body, field] of [
      [{ bounds: { north: 35, south: 36, east: 140, west: 139 } }, 'bounds.south'],
      [{ bounds: { north: 91, south: 35, east: 140, west: 139 } }, 'bounds.north'],
      [{ bounds: { north: 36, south: 35, east: 140 } }, 'bounds.west'],
      [{ per_page: 1001 }, 'per_page'],
      [{ referral_settings: { period, min_referral_count: -1 } }, 'referral_settings.min_referral_count'],
      [{ visits: { visit: 'never' } }, 'visits.visit'],
      [{ labels: [{ label_id: randomUUID(), integer_min: 3_000_000_000 }] }, 'labels.0.integer_min'],
    ] as const) {
      const res = await fx.post(url, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(JSON.stringify(res.json()), JSON.stringify(body)).toContain(field);
    }
  });
});
