import { expect, test, type Page } from '@playwright/test';
import { app, screenshot, signIn } from './fixtures.ts';

async function choose(page: Page, label: string, option: string) {
  await page.getByLabel(label, { exact: true }).and(page.locator('input')).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

/** A column's cells as the table shows them, top to bottom. */
async function columnTexts(page: Page, column: number): Promise<string[]> {
  return page
    .getByTestId('report-row')
    .evaluateAll((rows, i) => rows.map((r) => r.querySelectorAll('td')[i]!.textContent ?? ''), column);
}

/** A new report of a kind with 紹介数 added, saved and shown. */
async function createWithReferrals(page: Page, route: string, name: string, itemsBefore: number) {
  await signIn(page, undefined, `${route}/new`);
  await page.getByLabel('レポート名').fill(name);
  await expect(page.getByTestId('display-item')).toHaveCount(itemsBefore);
  await choose(page, '項目を追加', '紹介数');
  await page.getByRole('button', { name: '追加', exact: true }).click();
  await expect(page.getByTestId('display-item')).toHaveCount(itemsBefore + 1);
  await page.getByTestId('report-save').click();
  await expect(page).toHaveURL(new RegExp(`/app${route}/[0-9a-f-]{36}`));
  await expect(page.getByTestId('report-name')).toHaveText(name);
  await expect(page.getByTestId('report-row').first()).toBeVisible();
}

test('own-department report: one row per department of the hospital, with its referrals', async ({ page }) => {
  const name = `診療科別紹介-${Date.now() % 100000}`;
  await createWithReferrals(page, '/own_department_reports', name, 1);
  await expect(page.getByRole('columnheader', { name: '自院診療科' })).toBeVisible();
  await expect(page.getByRole('columnheader', { name: '紹介数（合計）' })).toBeVisible();
  // Own departments are no institutions: their names are text, not links to a CRM page.
  await expect(page.getByTestId('report-row').first().getByRole('link')).toHaveCount(0);
  const total = Number((await page.getByTestId('report-total').innerText()).replace(/[^0-9]/g, ''));
  await expect(page.getByTestId('report-row')).toHaveCount(total);

  // Every department the hospital keeps (its own departments' tab) is a row, in the hospital's order.
  const departments = await columnTexts(page, 0);
  expect(departments.every((d) => d.length > 0)).toBe(true);
  await screenshot(page, 'reports-own-department');
  await page.goto(app('/labels?tab=OwnDepartments'));
  const kept = page.locator('tr[data-own-department-name]');
  await expect(kept.first()).toBeVisible();
  const names = await kept.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-own-department-name') ?? ''));
  expect(departments.filter((d) => d !== '診療科なし')).toEqual(names);

  await page.goto(app('/own_department_reports'));
  await expect(page.getByTestId('report-list-row').filter({ hasText: name })).toBeVisible();
});

test('area report: a row per prefecture and city, the demo hospital’s 静岡県 among them', async ({ page }) => {
  const name = `エリア別紹介-${Date.now() % 100000}`;
  await createWithReferrals(page, '/area_reports', name, 2);
  await expect(page.getByRole('columnheader', { name: '都道府県' })).toBeVisible();
  await expect(page.getByRole('columnheader', { name: '市区町村' })).toBeVisible();
  await expect(page.getByRole('columnheader', { name: '紹介数（合計）' })).toBeVisible();
  const prefectures = await columnTexts(page, 0);
  expect(prefectures).toContain('静岡県');
  // (prefecture, city) is the row's identity: no pair twice on a page.
  const cities = await columnTexts(page, 1);
  const pairs = prefectures.map((p, i) => `${p}/${cities[i]}`);
  expect(new Set(pairs).size).toBe(pairs.length);
  await screenshot(page, 'reports-area');

  await page.goto(app('/area_reports'));
  await expect(page.getByTestId('report-list-row').filter({ hasText: name })).toBeVisible();
});
