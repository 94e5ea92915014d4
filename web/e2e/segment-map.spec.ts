import { expect, test, type Page } from '@playwright/test';
import fs from 'node:fs';
import { app, screenshot, signIn } from './fixtures.ts';

/** The view the address names (lat, lng, zoom), as the map's `data-view` writes it. */
function addressView(page: Page): string {
  const search = new URL(page.url()).searchParams;
  return ['lat', 'lng', 'zoom'].map((k) => search.get(k)).join(',');
}

test('segment map: the demo owner sees the segments in the legend, their institutions in the list, and opens one', async ({
  page,
}) => {
  // The demo's referral lists (and its segmentation setting) are imported after start; the map needs them.
  test.setTimeout(240_000);
  await signIn(page, undefined, '/data_uploads');
  await expect(page.locator('tr[data-upload-status="completed"]')).not.toHaveCount(0, { timeout: 150_000 });
  await page.goto(app('/segment_map'));
  await expect(page.getByRole('heading', { name: '診療圏分析' })).toBeVisible();
  const map = page.getByTestId('segment-map-canvas');
  await expect(map).toHaveAttribute('data-ready', 'true');
  await expect(map.locator('canvas')).toBeVisible();

  // The demo's segmentation setting: its three segments by priority, then the rest.
  const legend = page.getByRole('list', { name: 'セグメント凡例' });
  const lines = legend.getByRole('listitem');
  await expect(lines).toHaveCount(4, { timeout: 60_000 });
  await expect(lines.nth(0)).toContainText('A 重点連携先');
  await expect(lines.nth(1)).toContainText('B 主要連携先');
  await expect(lines.nth(2)).toContainText('C 育成対象');
  await expect(lines.nth(3)).toContainText('その他');

  // The default period is the last whole 年度.
  await expect(page.getByLabel('期間（開始）')).toHaveValue(/^\d{4}-04-01$/);
  await expect(page.getByLabel('期間（終了）')).toHaveValue(/^\d{4}-03-31$/);

  // Every pin is an entry of the list, under its segment's heading.
  const pins = Number(await map.getAttribute('data-pin-count'));
  expect(pins).toBeGreaterThan(0);
  const main = page.getByRole('main');
  await expect(page.getByTestId('segment-map-count')).toHaveText(`紹介元 ${pins}件`);
  const key = main.getByRole('region', { name: 'A 重点連携先' });
  await expect(key.getByRole('button').first()).toBeVisible();
  await expect(main.getByRole('region', { name: 'その他' }).getByRole('button').first()).toBeVisible();
  await screenshot(page, 'segment-map');

  // The view is in the address: zoomed in, reloaded, the map opens where it was.
  const historyLength = await page.evaluate(() => history.length);
  const initial = await map.getAttribute('data-view');
  expect(initial).toMatch(/^[\d.-]+,[\d.-]+,[\d.-]+$/);
  const box = (await map.boundingBox())!;
  await page.mouse.move(box.x + box.width / 3, box.y + box.height / 3);
  await page.mouse.wheel(0, -600);
  await expect
    .poll(async () => {
      const view = await map.getAttribute('data-view');
      return view !== initial && view === addressView(page);
    })
    .toBe(true);
  const view = addressView(page);
  expect(await page.evaluate(() => history.length)).toBe(historyLength);
  await page.reload();
  await expect(map).toHaveAttribute('data-ready', 'true');
  await expect(map).toHaveAttribute('data-view', view);
  expect(addressView(page)).toBe(view);
  await expect(lines).toHaveCount(4);

  // The list as CSV: UTF-8 with a BOM, a line per listed institution.
  await page.getByTestId('segment-map-export').click();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('menuitem', { name: 'UTF-8（BOM付き）' }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^診療圏分析_\d{4}-04-01_\d{4}-03-31\.csv$/);
  const bytes = fs.readFileSync((await download.path())!);
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const csv = bytes.subarray(3).toString('utf8').trim().split('\r\n');
  expect(csv[0]).toBe('セグメント,医療機関名,住所,紹介数,入院率(%),緯度,経度');
  expect(csv).toHaveLength(pins + 1);
  expect(csv[1]).toMatch(/^A 重点連携先,/);

  const entry = key.getByRole('button').first();
  const name = (await entry.locator('p').first().textContent())!;
  await entry.click();
  await page.waitForURL(/\/app\/crms\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId('crm-name')).toHaveText(name);
});
