import { expect, test } from '@playwright/test';
import { app, screenshot, signIn } from './fixtures.ts';

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

  const entry = key.getByRole('button').first();
  const name = (await entry.locator('p').first().textContent())!;
  await entry.click();
  await page.waitForURL(/\/app\/crms\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId('crm-name')).toHaveText(name);
});
