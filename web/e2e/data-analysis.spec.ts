import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import ExcelJS from 'exceljs';
import { app, screenshot, signIn } from './fixtures.ts';

/** The 年度 (April to March) of today in Japan. */
function fiscalYear(now = new Date()): number {
  const tokyo = new Date(now.getTime() + 9 * 3_600_000);
  return tokyo.getUTCMonth() >= 3 ? tokyo.getUTCFullYear() : tokyo.getUTCFullYear() - 1;
}

test('data analysis: previous 年度, a facility type, an institution from the ranking, Excel read back, print', async ({
  page,
}) => {
  // The demo's three years of referral lists are imported after start; the figures need them.
  test.setTimeout(240_000);
  await signIn(page, undefined, '/data_uploads');
  await expect(page.locator('tr[data-upload-status="completed"]')).not.toHaveCount(0, { timeout: 150_000 });

  await page.goto(app('/data_analysis'));
  await expect(page.getByRole('heading', { name: 'データ分析' })).toBeVisible();
  await expect(page.getByTestId('kpi-referrals-value')).toHaveText(/^[\d,]+$/);
  await expect(page.getByTestId('trend-panel').locator('[data-chart]').first()).toBeVisible();
  await screenshot(page, 'data-analysis-default');
  // On a 1440 px screen beside the menu two breakdown tables do not fit side by side: they stack, and no
  // heading of their nine columns wraps (squeezed, 「増/減」 and 「入/院」 read as two words each).
  await page.setViewportSize({ width: 1440, height: 900 });
  const ownPanel = (await page.getByTestId('breakdown-own').boundingBox())!;
  const departmentPanel = (await page.getByTestId('breakdown-department').boundingBox())!;
  expect(departmentPanel.y).toBeGreaterThanOrEqual(ownPanel.y + ownPanel.height);
  const headings = page.getByRole('table', { name: '自院診療科別' }).getByRole('columnheader');
  await expect(headings).toHaveCount(9);
  // The heading row is as tall as its tallest cell: under two lines when none wraps.
  const change = headings.nth(3);
  await expect(change).toHaveText('増減');
  const [rowHeight, lineHeight] = await change.evaluate((c) => [
    c.getBoundingClientRect().height,
    parseFloat(getComputedStyle(c).lineHeight) || parseFloat(getComputedStyle(c).fontSize) * 1.6,
  ]);
  expect(rowHeight).toBeLessThan(lineHeight! * 2);
  await page.setViewportSize({ width: 1280, height: 800 });

  // The previous 年度, whole: the URL carries it, so a reload shows the same view.
  const fy = fiscalYear() - 1;
  await page.getByRole('combobox', { name: '期間' }).click();
  await page.getByRole('option', { name: `${fy}年度`, exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`from=(%22)?${fy}-04-01`));
  await expect(page.getByTestId('analysis-conditions')).toContainText(`期間 ${fy}/04/01〜${fy + 1}/03/31`);
  // Panels keep the previous figures, dimmed and busy, until the new period's arrive.
  const busy = page.locator('[data-analysis-page] [aria-busy="true"]');
  await expect(busy).toHaveCount(0);
  await expect(page.getByTestId('kpi-referrals-value')).toHaveText(/^[\d,]+$/);
  const allTypes = Number((await page.getByTestId('kpi-referrals-value').innerText()).replaceAll(',', ''));
  expect(allTypes).toBeGreaterThan(0);

  // One facility type (the demo tenant has no own departments, so its referrals carry none): the cards
  // then show exactly what the facility-type breakdown showed for it, and a reload keeps the filter.
  const firstType = page.getByRole('table', { name: '施設種別' }).locator('tbody tr').first();
  const typeName = (await firstType.locator('td').nth(0).innerText()).trim();
  const typeCount = (await firstType.locator('td').nth(1).innerText()).trim();
  expect(Number(typeCount.replaceAll(',', ''))).toBeLessThan(allTypes);
  await page.getByRole('combobox', { name: '施設種別' }).click();
  await page.getByRole('option', { name: typeName, exact: true }).click();
  await page.keyboard.press('Escape');
  await expect(page).toHaveURL(/ft=/);
  await expect(page.getByTestId('analysis-conditions')).toContainText(`施設種別 ${typeName}`);
  await expect(busy).toHaveCount(0);
  await expect(page.getByTestId('kpi-referrals-value')).toHaveText(typeCount);
  await page.reload();
  await expect(page.getByTestId('analysis-conditions')).toContainText(`施設種別 ${typeName}`);
  await expect(page.getByTestId('kpi-referrals-value')).toHaveText(typeCount);
  await screenshot(page, 'data-analysis-filtered');

  // Excel of the top referrers, read back: the header and numbers as numbers.
  const top = page.getByTestId('ranking-top');
  const first = top.getByRole('link').first();
  await expect(first).toBeVisible();
  const name = (await first.innerText()).trim();
  await top.getByRole('button', { name: '出力' }).click();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('menuitem', { name: 'Excel（.xlsx）' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe('紹介件数上位.xlsx');
  const workbook = new ExcelJS.Workbook();
  const file = fs.readFileSync((await download.path())!);
  await workbook.xlsx.load(file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer);
  const sheet = workbook.worksheets[0]!;
  expect(sheet.getRow(1).values).toEqual([undefined, '順位', '医療機関', '紹介件数', '比較期間', '増減', '増減率(%)']);
  expect(sheet.getRow(2).getCell(2).value).toBe(name);
  expect(typeof sheet.getRow(2).getCell(3).value).toBe('number');

  // Printed: A4 landscape, the frame and the filter bar left out, the conditions at the top.
  await page.emulateMedia({ media: 'print' });
  await expect(page.getByTestId('analysis-filters')).toBeHidden();
  await expect(page.getByTestId('analysis-conditions')).toBeVisible();
  const pdf = await page.pdf({ preferCSSPageSize: true, printBackground: true });
  fs.mkdirSync('test-results/screenshots', { recursive: true });
  fs.writeFileSync('test-results/screenshots/data-analysis.pdf', pdf);
  expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  await page.emulateMedia({ media: 'screen' });

  // The institution opens from its ranking row.
  await first.click();
  await expect(page).toHaveURL(/\/crms\/[0-9a-f-]{36}/);
  await expect(page.getByTestId('crm-name')).toHaveText(name);
});
