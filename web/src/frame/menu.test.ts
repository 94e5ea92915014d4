import { describe, expect, it } from 'vitest';
import { featureKeys, type FeatureKey } from '@renkei/contracts';
import { menuEntries, topPagePath, viewportOf, visibleMenu } from './menu.ts';

const all = () => true;
const owner = (features: FeatureKey[]) => ({ features, role: 'owner' as const });
const keys = (entries: ReturnType<typeof visibleMenu>) => entries.map((e) => e.key);

describe('side menu', () => {
  it('shows an entry only when the account has its feature', () => {
    expect(keys(visibleMenu(owner(['tags']), all))).toEqual(['Tags']);
    expect(keys(visibleMenu(owner(['tags', 'accounts', 'tasks']), all))).toEqual(['Tasks', 'Tags', 'Accounts']);
    expect(visibleMenu(owner([]), all)).toEqual([]);
  });

  it("hides an owner's entries from members", () => {
    const member = { features: ['tags', 'accounts'] as FeatureKey[], role: 'member' as const };
    expect(keys(visibleMenu(member, all))).toEqual(['Tags']);
  });

  it('keeps the spec order with every feature', () => {
    expect(keys(visibleMenu(owner([...featureKeys]), all))).toEqual(menuEntries.map((e) => e.key));
  });

  it('hides entries whose page is not in this build', () => {
    const available = new Set(['/tags', '/profile']);
    expect(keys(visibleMenu(owner([...featureKeys]), (p) => available.has(p)))).toEqual(['Tags']);
  });

  it('shows the reports entry with only the report kinds the account has', () => {
    const [reports] = visibleMenu(owner(['report', 'area_report']), all);
    expect(reports?.key).toBe('Report');
    expect(reports?.children?.map((c) => c.to)).toEqual(['/area_reports']);
    expect(reports?.to).toBe('/area_reports');
    expect(visibleMenu(owner(['report']), all)).toEqual([]);
  });
});

describe('screen widths and the top page', () => {
  it('classifies widths as phone ≤ 599, tablet 600–1024, desktop ≥ 1025', () => {
    expect([599, 600, 1024, 1025].map(viewportOf)).toEqual(['phone', 'tablet', 'tablet', 'desktop']);
  });

  it('is data analysis on desktop and partner management on phones when they exist', () => {
    expect(topPagePath(owner([...featureKeys]), 'desktop', all)).toBe('/data_analysis');
    expect(topPagePath(owner([...featureKeys]), 'tablet', all)).toBe('/data_analysis');
    expect(topPagePath(owner([...featureKeys]), 'phone', all)).toBe('/medical_institutions_search');
  });

  it('falls back to the first page the account can use, then to personal settings', () => {
    const available = new Set(['/tags', '/profile']);
    expect(topPagePath(owner([...featureKeys]), 'desktop', (p) => available.has(p))).toBe('/tags');
    expect(topPagePath(owner(['tasks']), 'desktop', (p) => available.has(p))).toBe('/profile');
  });
});
