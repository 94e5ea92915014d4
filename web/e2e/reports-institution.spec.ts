import { expect, test, type Page } from '@playwright/test';
import fs from 'node:fs';
import { screenshot, signIn } from './fixtures.ts';

/** A form field by its label (a Mantine select's label names its wrapper too). */
const field = (page: Page, label: string) => page.getByLabel(label, { exact: true }).and(page.locator('input'));

/** A saved institution report with its default items (the institution's name), its page open. */
async function createInstitutionReport(page: Page, name: string): Promise<string> {
  await signIn(page, undefined, '/medical_institutions_reports/new');
  await page.getByLabel('レポート名').fill(name);
  await page.getByTestId('report-save').click();
  await expect(page).toHaveURL(/\/app\/medical_institutions_reports\/[0-9a-f-]{36}/);
  await expect(page.getByTestId('report-name')).toHaveText(name);
  return /\/medical_institutions_reports\/([0-9a-f-]{36})/.exec(page.url())![1]!;
}

test('institution report alert: conditions and recipients saved, and read back after a reload', async ({ page }) => {
  const name = `アラート-${Date.now() % 100000}`;
  const id = await createInstitutionReport(page, name);
  await page.getByRole('tab', { name: 'アラート設定' }).click();
  await expect(page).toHaveURL(/tab=alert/);
  const form = page.getByTestId('alert-settings');
  const enabled = form.getByRole('switch', { name: 'アラートを有効にする' });
  await expect(enabled).not.toBeChecked();

  // Enabled without a condition: refused on screen, nothing sent.
  await enabled.check();
  await form.getByRole('button', { name: 'アラート設定を保存' }).click();
  await expect(form.getByText('アラートの条件を1つ以上指定してください')).toBeVisible();

  await form.getByRole('button', { name: '条件を追加' }).click();
  await field(page, '条件1の項目').click();
  await page.getByRole('option', { name: '紹介数', exact: true }).click();
  await expect(field(page, '条件1の条件')).toHaveValue('以上');
  await field(page, '条件1の値').fill('5');
  await field(page, '通知先').click();
  const firstStaff = page.getByRole('option').first();
  const staff = (await firstStaff.innerText()).trim();
  await firstStaff.click();
  await page.keyboard.press('Escape');

  const saved = page.waitForResponse(
    (r) =>
      r.url().endsWith(`/medical_institution_reports/definitions/${id}/alert_settings`) &&
      r.request().method() === 'PUT',
  );
  await form.getByRole('button', { name: 'アラート設定を保存' }).click();
  const response = await saved;
  expect(response.status()).toBe(200);
  const body = response.request().postDataJSON() as {
    enabled: boolean;
    conditions: { item_key: string; operator: string; values: string[] }[];
    notify_user_ids: string[];
  };
  expect(body).toMatchObject({
    enabled: true,
    conditions: [{ item_key: 'referral_count', operator: 'gte', values: ['5'] }],
  });
  expect(body.notify_user_ids).toHaveLength(1);
  await expect(page.getByText('アラート設定を保存しました')).toBeVisible();
  await screenshot(page, 'reports-alert-settings');

  // The address keeps the tab: the reload reads the saved settings back.
  await page.reload();
  const reloaded = page.getByTestId('alert-settings');
  await expect(reloaded.getByRole('switch', { name: 'アラートを有効にする' })).toBeChecked();
  await expect(field(page, '条件1の項目')).toHaveValue('紹介数');
  await expect(field(page, '条件1の条件')).toHaveValue('以上');
  await expect(field(page, '条件1の値')).toHaveValue('5');
  await expect(reloaded.getByText(staff, { exact: true })).toBeVisible();
});

test('institution report 集計: grouped by 都道府県 and downloaded as CSV with its totals', async ({ page }) => {
  const name = `都道府県集計-${Date.now() % 100000}`;
  await createInstitutionReport(page, name);
  await page.getByRole('tab', { name: '集計' }).click();
  await page.getByTestId('aggregation-grouping').click();
  await page.getByRole('option', { name: '都道府県', exact: true }).click();
  await page.keyboard.press('Escape');
  await page.getByTestId('aggregation-run').click();
  const table = page.getByTestId('aggregation-result');
  await expect(table.getByRole('columnheader', { name: '都道府県' })).toBeVisible();
  await expect(table.getByTestId('report-row').first()).toBeVisible();
  const shown = await table.getByTestId('report-row').count();
  const shownCounts = await table
    .getByTestId('report-row')
    .evaluateAll((rows) => rows.map((r) => r.querySelectorAll('td')[1]!.textContent!.replaceAll(',', '')));
  const totalCount = (await table.getByTestId('report-totals').locator('td').nth(1).innerText()).replaceAll(',', '');

  await page.getByTestId('aggregation-export').click();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('menuitem', { name: 'UTF-8（BOM付き）' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`${name}_集計.csv`);
  const bytes = fs.readFileSync((await download.path())!);
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const lines = bytes.subarray(3).toString('utf8').trim().split('\r\n');
  expect(lines[0]).toBe('都道府県,件数');
  // The rows as the table shows them, then the 合計 row.
  expect(lines).toHaveLength(shown + 2);
  expect(lines.slice(1, -1).map((l) => l.split(',').at(-1))).toEqual(shownCounts);
  expect(lines.at(-1)).toBe(`合計,${totalCount}`);
  expect(shownCounts.reduce((s, c) => s + Number(c), 0)).toBe(Number(totalCount));
});

test('institution report printed: the frame and the buttons are left off the paper, the table stays', async ({
  page,
}) => {
  const name = `印刷-${Date.now() % 100000}`;
  await createInstitutionReport(page, name);
  await expect(page.getByTestId('report-row').first()).toBeVisible();
  const edit = page.getByTestId('report-edit');
  const tabs = page.getByRole('tab', { name: '結果' });
  const header = page.locator('.mantine-AppShell-header');
  await expect(header).toBeVisible();

  // 印刷 opens the browser's print dialog (replaced here: headless Chromium has none to close).
  await page.evaluate(() => {
    (window as unknown as { printed: number }).printed = 0;
    window.print = () => {
      (window as unknown as { printed: number }).printed += 1;
    };
  });
  await page.getByRole('button', { name: '印刷' }).click();
  expect(await page.evaluate(() => (window as unknown as { printed: number }).printed)).toBe(1);

  await page.emulateMedia({ media: 'print' });
  await expect(edit).toBeHidden();
  await expect(tabs).toBeHidden();
  await expect(header).toBeHidden();
  await expect(page.getByTestId('report-name')).toHaveText(name);
  await expect(page.getByTestId('report-result')).toBeVisible();
  await expect(page.getByTestId('report-row').first()).toBeVisible();
  await screenshot(page, 'reports-print');

  await page.emulateMedia({ media: 'screen' });
  await expect(edit).toBeVisible();
  await expect(header).toBeVisible();
});
