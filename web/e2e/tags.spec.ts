import { expect, test } from '@playwright/test';
import { screenshot, signIn } from './fixtures.ts';

test('tags: create, edit and delete, visible at once and after reload', async ({ page }) => {
  const name = `紹介強化-${Date.now() % 100000}`;
  const renamed = `${name}-改`;
  await signIn(page);

  await page.getByRole('button', { name: '新規作成' }).click();
  const dialog = page.getByRole('dialog', { name: 'タグを作成' });
  // An empty name is refused by the API and the message lands on the field.
  await dialog.getByRole('button', { name: '保存' }).click();
  await expect(dialog.getByText('タグ名を入力してください')).toBeVisible();
  await screenshot(page, 'tags-form-422');
  await dialog.getByLabel('タグ名').fill(name);
  await dialog.getByLabel('説明').fill('紹介の多い診療所');
  await dialog.getByLabel('グループ').fill('重点');
  await dialog.getByRole('button', { name: '保存' }).click();
  await expect(dialog).toBeHidden();
  const row = page.locator(`tr[data-tag-name="${name}"]`);
  await expect(row).toBeVisible();
  // Exact: the demo data has a tag 紹介元重点 in another group.
  await expect(page.getByTestId('tag-groups').getByText('重点', { exact: true })).toBeVisible();
  await screenshot(page, 'tags-created');
  await page.reload();
  await expect(row).toBeVisible();

  await row.getByRole('button', { name: '編集' }).click();
  const edit = page.getByRole('dialog', { name: 'タグを編集' });
  await expect(edit.getByLabel('タグ名')).toHaveValue(name);
  await edit.getByLabel('タグ名').fill(renamed);
  await edit.getByRole('button', { name: '保存' }).click();
  await expect(page.locator(`tr[data-tag-name="${renamed}"]`)).toBeVisible();
  await expect(row).toHaveCount(0);

  await page.locator(`tr[data-tag-name="${renamed}"]`).getByRole('button', { name: '削除' }).click();
  const confirm = page.getByRole('dialog', { name: 'タグを削除' });
  await expect(confirm.getByText(`タグ「${renamed}」を削除しますか？`)).toBeVisible();
  await screenshot(page, 'tags-delete-confirm');
  await confirm.getByRole('button', { name: '削除する' }).click();
  await expect(page.locator(`tr[data-tag-name="${renamed}"]`)).toHaveCount(0);
  await page.reload();
  await expect(page.getByRole('heading', { name: 'タグ管理' })).toBeVisible();
  await expect(page.locator(`tr[data-tag-name="${renamed}"]`)).toHaveCount(0);
});

test('profile: username and notification settings are saved', async ({ page }) => {
  await signIn(page, undefined, '/profile');
  await expect(page).toHaveTitle('個人設定 | Renkei');
  const username = page.getByLabel('氏名');
  const original = await username.inputValue();
  const next = `${original.replace(/（テスト）$/, '')}（テスト）`;
  await username.fill(next);
  const alerts = page.getByLabel('アラートのまとめを受け取る');
  const wasChecked = await alerts.isChecked();
  await alerts.setChecked(!wasChecked, { force: true });
  await page.getByRole('button', { name: '保存' }).click();
  await expect(page.getByText('個人設定を保存しました')).toBeVisible();
  await expect(page.getByTestId('user-menu')).toHaveText(next);
  await screenshot(page, 'profile-saved');
  await page.reload();
  await expect(page.getByLabel('氏名')).toHaveValue(next);
  expect(await page.getByLabel('アラートのまとめを受け取る').isChecked()).toBe(!wasChecked);
});
