import { expect, test, type Page } from '@playwright/test';
import fs from 'node:fs';
import { app, screenshot, signIn } from './fixtures.ts';

/** The last complete 年度 (April–March) in Japan: the demo's referral files cover it whole. */
function lastFiscalYear(): number {
  const now = new Date(Date.now() + 9 * 3600_000);
  const current = now.getUTCMonth() + 1 >= 4 ? now.getUTCFullYear() : now.getUTCFullYear() - 1;
  return current - 1;
}

async function choose(page: Page, label: string, option: string) {
  await page.getByLabel(label, { exact: true }).and(page.locator('input')).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

/** The figure of a row's cell as a number (the table writes 1,234). */
const numberIn = async (page: Page, row: number, column: number) =>
  Number(
    (await page.getByTestId('report-row').nth(row).getByRole('cell').nth(column).innerText()).replaceAll(',', '') ||
      '0',
  );

test('institution report: 紹介数 by month over the last 年度, sorted, exported, edited and deleted', async ({
  page,
}) => {
  const fy = lastFiscalYear();
  const name = `紹介数月次-${Date.now() % 100000}`;
  await signIn(page, undefined, '/medical_institutions_reports');
  await expect(page).toHaveTitle('医療機関レポート | Renkei');
  await page.getByTestId('report-new').first().click();
  await expect(page).toHaveURL(/\/app\/medical_institutions_reports\/new$/);

  await page.getByLabel('レポート名').fill(name);
  await page.getByText('年度で指定').click();
  await choose(page, '期間（開始年度）', `${fy}年度`);
  await choose(page, '期間（終了年度）', `${fy}年度`);
  await choose(page, '集計単位', '月');
  await choose(page, '項目を追加', '紹介数');
  await page.getByRole('button', { name: '追加', exact: true }).click();
  await expect(page.getByTestId('display-item')).toHaveCount(2);

  // The preview runs the unsaved definition: a column per month and the total.
  await page.getByTestId('report-preview').click();
  const result = page.getByTestId('report-result');
  await expect(result.getByRole('columnheader', { name: `紹介数 ${fy}年4月` })).toBeVisible();
  await expect(result.getByRole('columnheader', { name: '紹介数（合計）' })).toBeVisible();
  await screenshot(page, 'reports-editor-preview');

  await page.getByTestId('report-save').click();
  await expect(page).toHaveURL(/\/app\/medical_institutions_reports\/[0-9a-f-]{36}/);
  await expect(page.getByTestId('report-name')).toHaveText(name);
  await expect(page.getByTestId('report-row').first()).toBeVisible();
  await expect(page.getByRole('columnheader', { name: `紹介数 ${fy + 1}年3月` })).toBeVisible();
  // Institution rows open their CRM page.
  await expect(page.getByTestId('report-row').first().getByRole('link')).toHaveAttribute('href', /\/app\/crms\//);
  await screenshot(page, 'reports-detail');

  // On a 1366×768 office PC the month columns scroll inside a box that ends within the screen (its scrollbar
  // in view without scrolling past a hundred rows), the institution staying at the left.
  await page.setViewportSize({ width: 1366, height: 768 });
  const gridBox = page.getByTestId('report-result').locator('xpath=../..');
  const gridBefore = (await gridBox.boundingBox())!;
  expect(gridBefore.y + gridBefore.height).toBeLessThanOrEqual(768);
  await page
    .getByTestId('report-result')
    .getByRole('columnheader', { name: '紹介数（合計）' })
    .scrollIntoViewIfNeeded();
  const gridNow = (await gridBox.boundingBox())!;
  const firstName = (await page.getByTestId('report-row').first().getByRole('link').boundingBox())!;
  expect(firstName.x).toBeGreaterThanOrEqual(gridNow.x);
  await screenshot(page, 'reports-detail-1366');
  await page.setViewportSize({ width: 1280, height: 800 });

  // CSV of every row: UTF-8 with a BOM, the header as the table's.
  await page.getByTestId('report-export').click();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('menuitem', { name: 'UTF-8（BOM付き）' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`${name}.csv`);
  const bytes = fs.readFileSync((await download.path())!);
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const lines = bytes.subarray(3).toString('utf8').trim().split('\r\n');
  expect(lines[0]).toContain('医療機関名');
  expect(lines[0]).toContain('紹介数（合計）');
  const total = Number((await page.getByTestId('report-total').innerText()).replace(/[^0-9]/g, ''));
  expect(lines.length - 1).toBe(total);

  // Printed on A4 portrait (about 720 px of paper width): every column is on the paper, the last month and
  // the total too, the menu and the buttons are not. Before, the table's scroll box cut the paper at September.
  await page.setViewportSize({ width: 720, height: 1000 });
  await page.emulateMedia({ media: 'print' });
  const lastHeader = page.getByRole('columnheader', { name: '紹介数（合計）' });
  const right = async () => {
    const box = await lastHeader.boundingBox();
    return box ? box.x + box.width : Infinity;
  };
  await expect.poll(right).toBeLessThanOrEqual(720);
  await expect(page.getByTestId('side-menu')).toBeHidden();
  await expect(page.getByTestId('report-edit')).toBeHidden();
  await screenshot(page, 'reports-print-wide');
  await page.emulateMedia({ media: 'screen' });
  await page.setViewportSize({ width: 1280, height: 800 });

  // Edited: renamed and sorted by the total, most referrals first.
  await page.getByTestId('report-edit').click();
  await page.getByLabel('レポート名').fill(`${name}（降順）`);
  await page.getByRole('button', { name: '並び順を追加' }).click();
  await choose(page, '並び順1の項目', '紹介数');
  await page.getByRole('radiogroup', { name: '並び順1の向き' }).getByText('降順').click();
  await page.getByTestId('report-save').click();
  await expect(page.getByTestId('report-name')).toHaveText(`${name}（降順）`);
  const totalColumn = 13; // name, twelve months, then the total
  await expect(page.getByTestId('report-row').nth(1)).toBeVisible();
  // The demo's busiest referrer first: the first three totals descend.
  const firstTotals = () => Promise.all([0, 1, 2].map((i) => numberIn(page, i, totalColumn)));
  const descending = (t: number[]) => t[0]! > 0 && t[0]! >= t[1]! && t[1]! >= t[2]!;
  await expect.poll(async () => descending(await firstTotals())).toBe(true);

  // Deleted from the list, after the confirmation.
  await page.getByRole('link', { name: '一覧へ戻る' }).click();
  const row = page.getByTestId('report-list-row').filter({ hasText: `${name}（降順）` });
  await expect(row).toBeVisible();
  await row.getByRole('button', { name: `${name}（降順）を削除` }).click();
  await page.getByTestId('report-delete-confirm').click();
  await expect(page.getByText('レポートを削除しました')).toBeVisible();
  await expect(row).toHaveCount(0);
});

test('activity report aggregated by 担当者', async ({ page }) => {
  const name = `担当者別活動-${Date.now() % 100000}`;
  await signIn(page, undefined, '/communication_reports/new');
  await page.getByLabel('レポート名').fill(name);
  await page.getByTestId('report-save').click();
  await expect(page.getByTestId('report-name')).toHaveText(name);
  await expect(page.getByTestId('report-total')).toBeVisible();

  await page.getByRole('tab', { name: '集計' }).click();
  await page.getByTestId('aggregation-grouping').click();
  await page.getByRole('option', { name: '担当者', exact: true }).click();
  await page.keyboard.press('Escape');
  await page.getByTestId('aggregation-run').click();
  const table = page.getByTestId('aggregation-result');
  await expect(table.getByRole('columnheader', { name: '担当者' })).toBeVisible();
  await expect(table.getByRole('columnheader', { name: '件数' })).toBeVisible();
  await expect(table.getByTestId('report-row').first()).toBeVisible();
  await expect(table.getByTestId('report-totals')).toContainText('合計');
  await screenshot(page, 'reports-aggregation');
  await page.goto(app('/communication_reports'));
  await expect(page.getByTestId('report-list-row').filter({ hasText: name })).toBeVisible();
});
