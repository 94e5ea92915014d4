import { expect, test } from '@playwright/test';
import { app, screenshot, signIn } from './fixtures.ts';

// The demo master is generated with a fixed seed, so this institution always exists (institutions.spec.ts).
const institution = { name: '葵医療センター', halfWidthKana: 'ｱｵｲｲﾘｮｳｾﾝﾀｰ' };
const suffix = String(Date.now() % 100000);
const patient = `E2E${suffix}`;

test('referral list in the hospital’s own columns: mapped, imported with progress and counts, shown on the institution’s referral page', async ({
  page,
}) => {
  // The demo's own uploads (three years of lists, FF1, D and EF) run first in the tenant's import queue.
  test.setTimeout(240_000);
  await signIn(page, undefined, '/data_uploads');
  await expect(page.getByRole('heading', { name: 'データアップロード' })).toBeVisible();
  // Whatever ran before (the demo's uploads, an earlier run of this spec) has ended: nothing queued or running.
  await expect(page.locator('tr[data-upload-status="completed"]').nth(4)).toBeVisible({ timeout: 150_000 });
  await expect(
    page.locator('tr[data-upload-status]:not([data-upload-status="completed"]):not([data-upload-status="failed"])'),
  ).toHaveCount(0, { timeout: 150_000 });

  // The hospital's own export: its own column names, 和暦 dates, the institution by name only, one bad row.
  const csv = [
    '受付年月日,カルテNo,紹介元病院名,依頼内容,受診科',
    `R12.4.1,${patient},${institution.name},精査加療のお願い,内科`,
    `R12.4.2,${patient}-2,${institution.name},経過観察,内科`,
    `日付なし,${patient}-3,${institution.name},,内科`,
    // An institution the master does not know: kept as unmatched, then matched by hand below.
    `R12.4.3,${patient}-4,未登録医院${suffix},紹介状持参,内科`,
  ].join('\r\n');
  const card = page.getByTestId('upload-card-referral');
  await card.locator('input[type=file]').setInputFiles({
    name: `紹介一覧-${suffix}.csv`,
    mimeType: 'text/csv',
    buffer: Buffer.from(csv),
  });
  await card.getByRole('button', { name: '列を確認してアップロード' }).click();

  const step = page.getByTestId('mapping-step');
  await expect(step).toBeVisible();
  const choose = async (column: string, fileColumn: string) => {
    // A run before this one saved the mapping, which pre-fills the step: choosing again keeps the value.
    const input = step.getByLabel(column, { exact: true });
    await input.click();
    await page.getByRole('option', { name: fileColumn, exact: true }).click();
    await expect(input).toHaveValue(fileColumn);
  };
  await choose('紹介日 *', '受付年月日');
  await choose('患者ID *', 'カルテNo');
  await choose('紹介元医療機関名', '紹介元病院名');
  await choose('紹介目的', '依頼内容');
  await expect(page.getByTestId('mapping-preview')).toContainText(patient);
  await screenshot(page, 'referrals-mapping');
  await step.getByRole('button', { name: '対応付けを保存して取り込む' }).click();

  const row = page.locator(`tr[data-upload-filename="紹介一覧-${suffix}.csv"]`);
  await expect(row).toBeVisible();
  await expect(row).toHaveAttribute('data-upload-status', 'completed', { timeout: 60_000 });
  // 3 rows in, 1 refused; 3 new referrals.
  await expect(row.locator('td').nth(4)).toHaveText('3');
  await expect(row.locator('td').nth(5)).toHaveText('1');
  await expect(row.locator('td').nth(6)).toHaveText('3');
  await row.getByRole('button', { name: '詳細' }).click();
  await expect(page.getByTestId('upload-details')).toContainText('4行目');
  await screenshot(page, 'referrals-upload-history');

  // The unmatched institution, matched by hand to the institution: its referral moves there.
  const match = page.getByRole('button', { name: `未登録医院${suffix}を照合` });
  await match.click();
  await page.getByPlaceholder('名称・カナ・住所で検索').fill(institution.name);
  await page.getByRole('option', { name: institution.name, exact: true }).click();
  await page.getByTestId('match-institution-save').click();
  await expect(match).toHaveCount(0);

  await page.goto(app('/medical_institutions_search'));
  await page.getByTestId('filter-keyword').fill(institution.halfWidthKana);
  await page.getByTestId('filter-apply').click();
  await page.locator(`tr[data-institution-name="${institution.name}"]`).getByTestId('institution-link').click();
  await expect(page.getByTestId('crm-name')).toHaveText(institution.name);
  const id = page.url().match(/crms\/([0-9a-f-]{36})/)![1]!;

  await page.getByTestId('open-referrals').click();
  await expect(page).toHaveURL(new RegExp(`/crms/${id}/referrals`));
  await expect(page.getByRole('heading', { name: `${institution.name} の紹介実績` })).toBeVisible();
  await expect(page.getByTestId('referral-chart')).toBeVisible();
  const referral = page.getByTestId('referral-row').filter({ hasText: patient }).first();
  await expect(referral).toContainText('2030');
  await expect(page.getByTestId('referral-list')).toContainText(`${patient}-2`);
  await expect(page.getByTestId('referral-list')).toContainText(`${patient}-4`);
  await screenshot(page, 'referrals-institution');
  await page.getByRole('link', { name: '医療機関ページへ戻る' }).click();
  await expect(page.getByTestId('crm-name')).toHaveText(institution.name);
});

test('data sync status: the last upload of each type and every read model, from the side menu', async ({ page }) => {
  await signIn(page, undefined, '/tags');
  await page.getByRole('link', { name: 'データ連携状況' }).click();
  await expect(page.getByRole('heading', { name: 'データ連携状況' })).toBeVisible();
  // The demo's referral list was uploaded on first start and has been imported.
  const referral = page.locator('[data-import-type="referral"]');
  await expect(referral).toContainText('完了', { timeout: 150_000 });
  await expect(page.getByTestId('master-sync')).toContainText('件');
  await expect(page.locator('[data-projection="referrals"]')).toBeVisible();
  await expect(page.locator('[data-projection][data-status="stopped"]')).toHaveCount(0);
  await screenshot(page, 'data-sync-statuses');
});
