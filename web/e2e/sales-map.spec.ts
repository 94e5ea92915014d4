import { expect, test, type Locator, type Page } from '@playwright/test';
import { screenshot, signIn } from './fixtures.ts';

const searchPath = '/api/medical_institutions/search_for_sales_map_results';

interface Bounds {
  north: number;
  south: number;
  east: number;
  west: number;
}

/** The view the address names (lat, lng, zoom), as the map's `data-view` writes it. */
function addressView(page: Page): string {
  const search = new URL(page.url()).searchParams;
  return ['lat', 'lng', 'zoom'].map((k) => search.get(k)).join(',');
}

/** The referral counts the list shows, top to bottom. */
async function listedCounts(list: Locator): Promise<number[]> {
  const texts = await list.getByText(/^紹介 \d+件$/).allTextContents();
  return texts.map((t) => Number(/\d+/.exec(t)![0]));
}

async function opensCrmPage(page: Page, list: Locator) {
  const name = (await list.getByRole('button').first().locator('p').first().textContent())!;
  // By its name, not by its place: the list may still be re-sorted by a search for the view it settled on.
  const entry = list
    .getByRole('button')
    .filter({ has: page.getByText(name, { exact: true }) })
    .first();
  await entry.click();
  await page.waitForURL(/\/app\/crms\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId('crm-name')).toHaveText(name);
}

test('sales map: the demo owner sees pins and the list, filters by referrals, zooms and opens an institution', async ({
  page,
}) => {
  const spans: number[] = [];
  const lastSearched: Bounds[] = [];
  page.on('request', (r) => {
    if (!r.url().endsWith(searchPath)) return;
    const b = (r.postDataJSON() as { bounds?: Bounds }).bounds;
    if (b) {
      spans.push(b.north - b.south);
      lastSearched.push(b);
    }
  });
  await signIn(page, undefined, '/sale_map');
  await expect(page.getByRole('heading', { name: '営業分析マップ' })).toBeVisible();
  const map = page.getByTestId('sales-map-canvas');
  await expect(map).toHaveAttribute('data-ready', 'true');
  await expect(map.locator('canvas')).toBeVisible();
  await expect(page.getByText('地図: Natural Earth (world-atlas)')).toBeVisible();

  // The visible rectangle around the demo hospital (静岡) holds demo institutions: pins and entries.
  const list = page.getByRole('list', { name: '医療機関一覧' });
  await expect(list.getByRole('button').first()).toBeVisible();
  const pins = Number(await map.getAttribute('data-pin-count'));
  expect(pins).toBeGreaterThan(0);
  await expect(list.getByRole('button')).toHaveCount(pins);
  const counts = await listedCounts(list);
  // Biggest referrers first.
  expect(counts).toEqual([...counts].sort((a, b) => b - a));
  await expect(page.getByTestId('sales-map-count')).toHaveText(new RegExp(`^表示件数 ${pins}件（該当 \\d+件）$`));
  await screenshot(page, 'sales-map');

  // One cold load, one search: the list searches the opening view's rectangle while the map's code loads,
  // and the ready map reports the same rectangle (not first its canvas's default size, then its real one).
  // The map's reports are debounced by 400 ms: a second search would have gone out within this wait.
  await page.waitForTimeout(1_500);
  expect(lastSearched).toHaveLength(1);
  expect(addressView(page)).toBe(await map.getAttribute('data-view'));

  // At least as many referrals as the third entry: only the entries with that many remain.
  const min = counts[Math.min(2, counts.length - 1)]!;
  expect(min).toBeGreaterThan(0);
  await page.getByRole('textbox', { name: '最低紹介数' }).fill(String(min));
  await page.getByRole('button', { name: '絞り込む' }).click();
  await expect(page).toHaveURL(new RegExp(`min_referral_count=${min}`));
  const kept = counts.filter((c) => c >= min).length;
  await expect(list.getByRole('button')).toHaveCount(kept);
  expect((await listedCounts(list)).every((c) => c >= min)).toBe(true);
  await expect(map).toHaveAttribute('data-pin-count', String(kept));

  // Zooming in sends a smaller rectangle than the view had (once the view rests): the last one searched.
  const before = spans.at(-1)!;
  expect(before).toBeGreaterThan(0);
  const box = (await map.boundingBox())!;
  const zoomed = page.waitForRequest((r) => {
    if (!r.url().endsWith(searchPath) || r.method() !== 'POST') return false;
    const b = (r.postDataJSON() as { bounds?: { north: number; south: number } }).bounds;
    return b !== undefined && b.north - b.south < before;
  });
  const historyLength = await page.evaluate(() => history.length);
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.wheel(0, -600);
  const body = (await zoomed).postDataJSON() as { bounds: Bounds };
  expect(body.bounds.north - body.bounds.south).toBeLessThan(before);

  // The settled view is in the address, replacing its entry (panning adds no history), beside the filter.
  await expect.poll(async () => (await map.getAttribute('data-view')) === addressView(page)).toBe(true);
  const view = addressView(page);
  expect(await page.evaluate(() => history.length)).toBe(historyLength);
  expect(new URL(page.url()).searchParams.get('min_referral_count')).toBe(String(min));
  const lastBounds = lastSearched.at(-1)!;

  // A reload (or the link sent to a colleague) opens the same view and searches the same rectangle: the
  // address rounds the zoom to 0.01, so the rectangle may differ by well under 1% of its size.
  const tolerance = 0.01 * Math.max(lastBounds.north - lastBounds.south, lastBounds.east - lastBounds.west);
  const near = (a: number, b: number) => Math.abs(a - b) < tolerance;
  const same = page.waitForRequest((r) => {
    if (!r.url().endsWith(searchPath) || r.method() !== 'POST') return false;
    const b = (r.postDataJSON() as { bounds?: Bounds }).bounds;
    return (
      b !== undefined &&
      near(b.north, lastBounds.north) &&
      near(b.south, lastBounds.south) &&
      near(b.east, lastBounds.east) &&
      near(b.west, lastBounds.west)
    );
  });
  await page.reload();
  await expect(map).toHaveAttribute('data-ready', 'true');
  await same;
  await expect(map).toHaveAttribute('data-view', view);
  expect(addressView(page)).toBe(view);
  await expect(page.getByRole('textbox', { name: '最低紹介数' })).toHaveValue(String(min));

  await opensCrmPage(page, list);
});

test('sales map without WebGL: a message in Japanese, and the list still leads to the institutions', async ({
  page,
}) => {
  // A browser without WebGL (no GPU and no software fallback).
  await page.addInitScript(() => {
    const original = HTMLCanvasElement.prototype.getContext;
    HTMLCanvasElement.prototype.getContext = function (this: HTMLCanvasElement, type: string, ...rest: unknown[]) {
      if (type === 'webgl2' || type === 'webgl' || type === 'experimental-webgl') return null;
      return (original as (...a: unknown[]) => unknown).call(this, type, ...rest);
    } as typeof original;
  });
  await signIn(page, undefined, '/sale_map');
  await expect(page.getByTestId('sales-map-unavailable')).toHaveText(/この環境では地図を表示できません/);
  await expect(page.getByTestId('sales-map-canvas')).toHaveCount(0);
  const list = page.getByRole('list', { name: '医療機関一覧' });
  await expect(list.getByRole('button').first()).toBeVisible();
  await screenshot(page, 'sales-map-no-webgl');
  await opensCrmPage(page, list);
});
