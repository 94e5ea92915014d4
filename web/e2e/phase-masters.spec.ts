import { expect, test } from '@playwright/test';
import { demoOwner, screenshot, signIn } from './fixtures.ts';

const member = { email: 'member@demo.example.jp', password: demoOwner.password };
const suffix = String(Date.now() % 100000);

test.describe.configure({ mode: 'serial' });

test('an owner adds, renames, reorders and deletes a phase on the labels page', async ({ page }) => {
  await signIn(page, undefined, '/labels?tab=PhaseMasters');
  await expect(page).toHaveTitle('ラベル管理 | Renkei');
  await expect(page.getByRole('tab', { name: 'フェーズ' })).toHaveAttribute('aria-selected', 'true');
  const name = `検討中-${suffix}`;

  await page.getByTestId('add-phase').click();
  const add = page.getByRole('dialog', { name: 'フェーズを追加' });
  await add.getByTestId('save-phase').click();
  await expect(add.getByText('フェーズ名を入力してください')).toBeVisible();
  await add.getByLabel('フェーズ名').fill(name);
  await add.getByLabel('説明').fill('先方が連携を検討している');
  await add.getByTestId('save-phase').click();
  const row = page.locator(`tr[data-phase-name="${name}"]`);
  await expect(add).toBeHidden();
  await expect(row).toBeVisible();
  await screenshot(page, 'phase-masters');
  // Saved on the server: a reload lists it last.
  await page.reload();
  await expect(page.locator('tr[data-phase-name]').last()).toHaveAttribute('data-phase-name', name);

  await row.getByRole('button', { name: '編集' }).click();
  const edit = page.getByRole('dialog', { name: 'フェーズを編集' });
  await edit.getByLabel('フェーズ名').fill(`${name}改`);
  await edit.getByTestId('save-phase').click();
  const renamed = page.locator(`tr[data-phase-name="${name}改"]`);
  await expect(renamed).toBeVisible();

  const rows = page.locator('tr[data-phase-name]');
  const count = await rows.count();
  if (count > 1) {
    await page.getByRole('button', { name: `${name}改を上へ` }).click();
    await expect(rows.nth(count - 2)).toHaveAttribute('data-phase-name', `${name}改`);
  }

  await renamed.getByRole('button', { name: '削除' }).click();
  const confirm = page.getByRole('dialog', { name: 'フェーズを削除' });
  await expect(confirm).toContainText('フェーズが未設定になります');
  await confirm.getByTestId('confirm-delete-phase').click();
  await expect(renamed).toHaveCount(0);
  await page.reload();
  await expect(page.locator('tr[data-phase-name]').first()).toBeVisible();
  await expect(renamed).toHaveCount(0);
});

test('a member sees the phases read-only', async ({ page }) => {
  await signIn(page, member, '/labels?tab=PhaseMasters');
  await expect(page.getByTestId('phase-masters-read-only')).toContainText('オーナーのみ');
  await expect(page.getByTestId('add-phase')).toHaveCount(0);
  await expect(page.getByRole('button', { name: '削除' })).toHaveCount(0);
});
