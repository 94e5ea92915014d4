import { expect, test } from '@playwright/test';
import { app, screenshot, signIn } from './fixtures.ts';

test('action lists: a list from the partner search, an item actioned, the count and the CRM page follow', async ({
  page,
}) => {
  const name = `訪問フォロー-${Date.now() % 100000}`;
  await signIn(page, undefined, '/medical_institutions_search');

  // The search's current page goes onto a new list in one call.
  const rows = page.locator('tr[data-institution-name]');
  await expect(rows.first()).toBeVisible();
  const shown = await rows.count();
  const first = (await rows.first().getAttribute('data-institution-name'))!;
  await page.getByTestId('add-to-action-list').click();
  const dialog = page.getByRole('dialog', { name: 'アクションリストに追加' });
  await expect(dialog.getByText(`表示中の医療機関${shown}件`)).toBeVisible();
  await dialog.getByText('新しいリストを作成').click();
  await dialog.getByLabel('新しいアクションリスト名').fill(name);
  await screenshot(page, 'action-lists-add-from-search');
  await dialog.getByRole('button', { name: '保存' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText(`アクションリスト「${name}」を作成し、${shown}件を追加しました`)).toBeVisible();

  await page.goto(app('/action_lists'));
  await expect(page).toHaveTitle('アクションリスト | Renkei');
  const row = page.getByTestId('action-list-row').filter({ hasText: name });
  await expect(row.getByTestId('action-list-count')).toHaveText(String(shown));
  await expect(row.getByTestId('action-list-actioned')).toHaveText('0');
  await row.getByRole('button', { name: `${name}の医療機関を表示` }).click();
  const items = page.getByTestId('action-list-item-row');
  await expect(items).toHaveCount(Math.min(shown, 50));

  // One institution marked actioned: the list's count moves at once and after a reload.
  await page.getByRole('button', { name: `${first}を対応済みにする` }).click();
  await expect(row.getByTestId('action-list-actioned')).toHaveText('1');
  await expect(items.filter({ hasText: first }).getByTestId('item-status')).toHaveText('対応済み');
  await page.getByRole('radiogroup', { name: '対応状況で絞り込み' }).getByText('対応済み', { exact: true }).click();
  await expect(items).toHaveCount(1);
  await screenshot(page, 'action-lists-actioned');
  await page.reload();
  await expect(row.getByTestId('action-list-actioned')).toHaveText('1');
  await expect(items).toHaveCount(1);

  // The institution's CRM page names the list, with its status there, and links back to it.
  await items.first().getByRole('link', { name: first }).click();
  const card = page.getByTestId('institution-action-lists');
  const entry = card.getByTestId('institution-action-list').filter({ hasText: name });
  await expect(entry).toBeVisible();
  await expect(entry.getByText('対応済み')).toBeVisible();
  await screenshot(page, 'action-lists-crm');
  await entry.getByRole('link', { name }).click();
  await expect(page.getByTestId('action-list-items')).toContainText(name);
});

test('action lists: a link to a list that does not exist says so in words', async ({ page }) => {
  await signIn(page, undefined, '/action_lists?id=00000000-0000-4000-8000-00000000dead');
  await expect(page.getByTestId('action-list-missing')).toHaveText(
    '選択したアクションリストは見つかりません。削除された可能性があります。一覧から別のリストを選んでください。',
  );
  await expect(page.getByTestId('error-page')).toHaveCount(0);
});

test("action lists: a list of referrers that stopped shows each one's referral figures and last visit", async ({
  page,
}) => {
  await signIn(page, undefined, '/action_lists');
  const row = page.getByTestId('action-list-row').filter({ hasText: '紹介減少先フォロー' });
  await row.getByRole('button', { name: /紹介減少先フォロー.*の医療機関を表示/ }).click();
  const items = page.getByTestId('action-list-item-row');
  await expect(items.first()).toBeVisible();
  await expect(page.getByTestId('action-list-referral-periods')).toContainText('紹介数は ');
  // Every item has its counts for the period; a list of referrers that stopped has some that fell.
  const counts = await items.locator('[data-column="referral_count"]').allTextContents();
  expect(counts.every((c) => /^\d+$/.test(c.trim()))).toBe(true);
  const rates = await items.locator('[data-column="rate_of_referral_change"]').allTextContents();
  expect(rates.some((r) => r.trim().startsWith('-'))).toBe(true);
  // The figures' columns do not squeeze the address to a few characters a line: the table scrolls instead.
  const address = await items.first().locator('[data-column="address"]').boundingBox();
  expect(address!.width).toBeGreaterThanOrEqual(200);
  await screenshot(page, 'action-lists-referral-figures');
});
