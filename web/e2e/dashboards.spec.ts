import { expect, test, type Page } from '@playwright/test';
import { screenshot, signIn } from './fixtures.ts';

async function choose(page: Page, label: string, option: string) {
  await page.getByLabel(label, { exact: true }).and(page.locator('input')).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

test('dashboards: a dashboard of a report, shown, edited, its report deleted, and deleted', async ({ page }) => {
  const suffix = Date.now() % 100000;
  const report = `ダッシュボード用-${suffix}`;
  const name = `月次会議-${suffix}`;

  // A report to place: an institution report with its default items.
  await signIn(page, undefined, '/medical_institutions_reports/new');
  await page.getByLabel('レポート名').fill(report);
  await page.getByTestId('report-save').click();
  await expect(page).toHaveURL(/\/app\/medical_institutions_reports\/[0-9a-f-]{36}/);

  await page.getByRole('link', { name: 'ダッシュボード', exact: true }).first().click();
  await expect(page).toHaveURL(/\/app\/dashboards/);
  await expect(page).toHaveTitle('ダッシュボード | Renkei');
  await page.getByRole('link', { name: '新規作成' }).click();
  await expect(page).toHaveURL(/\/app\/dashboards\/new$/);

  // The name is required; a report row without a report is named on its field.
  await page.getByRole('button', { name: 'レポートを追加' }).click();
  await page.getByRole('button', { name: '保存' }).click();
  await expect(page.getByText('ダッシュボード名を入力してください')).toBeVisible();
  await expect(page.getByText('レポートを選択してください')).toBeVisible();

  await page.getByLabel('ダッシュボード名').fill(name);
  await choose(page, '1件目のレポートの種類', '医療機関レポート');
  await choose(page, '1件目のレポート', report);
  await screenshot(page, 'dashboards-new');
  await page.getByRole('button', { name: '保存' }).click();

  await expect(page).toHaveURL(/\/app\/dashboards\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { name })).toBeVisible();
  const card = page.getByTestId('dashboard-report');
  await expect(card.getByRole('link', { name: report })).toBeVisible();
  await expect(card.getByTestId('report-result')).toBeVisible();
  await expect(card.getByRole('columnheader', { name: '医療機関名' })).toBeVisible();
  await screenshot(page, 'dashboards-detail');

  // The report has more institutions than a card's 20 rows: the card pages through them.
  const total = Number((await card.getByTestId('report-total').innerText()).replace(/[^0-9]/g, ''));
  expect(total).toBeGreaterThan(20);
  await expect(card.getByTestId('report-row')).toHaveCount(20);
  // Each row links to its institution's CRM page: the links tell the pages' institutions apart.
  const institutions = () =>
    card
      .getByTestId('report-row')
      .getByRole('link')
      .evaluateAll((links) => links.map((a) => a.getAttribute('href')));
  const firstPage = await institutions();
  const second = page.waitForResponse(
    (r) =>
      r.url().endsWith('/api/medical_institution_reports/results') &&
      (r.request().postDataJSON() as { page?: number }).page === 2,
  );
  await card.getByRole('button', { name: '2', exact: true }).click();
  expect((await second).status()).toBe(200);
  await expect(card.getByRole('button', { name: '2', exact: true })).toHaveAttribute('data-active', 'true');
  await expect(card.getByTestId('report-row')).toHaveCount(Math.min(20, total - 20));
  await expect.poll(institutions).not.toEqual(firstPage);
  const secondPage = await institutions();
  expect(secondPage.filter((href) => firstPage.includes(href))).toEqual([]);

  // Renamed, visible at once and after a reload.
  await page.getByRole('link', { name: '編集' }).click();
  await expect(page).toHaveURL(/\/edit$/);
  await page.getByLabel('ダッシュボード名').fill(`${name}（改）`);
  await page.getByRole('button', { name: '保存' }).click();
  await expect(page.getByRole('heading', { name: `${name}（改）` })).toBeVisible();
  await page.reload();
  await expect(page.getByRole('heading', { name: `${name}（改）` })).toBeVisible();
  const dashboardUrl = page.url();

  // The report deleted: the dashboard says so.
  await page.goto(dashboardUrl.replace(/\/dashboards\/.*$/, '/medical_institutions_reports'));
  await page.getByRole('button', { name: `${report}を削除` }).click();
  await page.getByRole('button', { name: '削除する' }).click();
  await expect(page.getByRole('link', { name: report })).toHaveCount(0);
  await page.goto(dashboardUrl);
  await expect(page.getByTestId('dashboard-report').getByText('削除されたレポート')).toBeVisible();

  // Deleted from the list.
  await page.getByRole('link', { name: '一覧へ戻る' }).click();
  const row = page.getByTestId('dashboard-row').filter({ hasText: `${name}（改）` });
  await expect(row).toBeVisible();
  await row.getByRole('button', { name: `${name}（改）を削除` }).click();
  await page.getByRole('button', { name: '削除する' }).click();
  await expect(row).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId('dashboard-row').filter({ hasText: `${name}（改）` })).toHaveCount(0);
});
