import { expect, test } from '@playwright/test';
import { demoOwner, screenshot, signIn } from './fixtures.ts';

const member = { email: 'member@demo.example.jp', password: demoOwner.password };
const suffix = String(Date.now() % 100000);

test.describe.configure({ mode: 'serial' });

// The demo tenant may or may not have own departments already (the seed adds some): the test works
// with a name of its own and only checks positions relative to the end of the list.
test('an owner adds, renames, reorders and deletes an own department on the labels page', async ({ page }) => {
  await signIn(page, undefined, '/labels?tab=OwnDepartments');
  await expect(page).toHaveTitle('ラベル管理 | Renkei');
  await expect(page.getByTestId('own-departments-tab')).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('own-departments-matching')).toContainText(
    '取り込み済みで「未設定」の行も名前で対応付けられ',
  );
  const name = `検証科-${suffix}`;
  const rows = page.locator('tr[data-own-department-name]');

  await page.getByTestId('add-own-department').click();
  const add = page.getByRole('dialog', { name: '自院診療科を新規作成' });
  await add.getByTestId('save-own-department').click();
  await expect(add.getByText('診療科名を入力してください')).toBeVisible();
  await add.getByLabel('診療科名').fill(name);
  // The master department: a searchable select of GET /departments.
  await add.getByTestId('own-department-master-select').fill('内科');
  await page.getByRole('option', { name: /^内科（\d+）$/ }).click();
  await add.getByTestId('save-own-department').click();
  const row = page.locator(`tr[data-own-department-name="${name}"]`);
  await expect(add).toBeHidden();
  await expect(row).toBeVisible();
  await expect(row).toContainText('内科');
  await screenshot(page, 'own-departments');
  // Saved on the server: a reload lists it last.
  await page.reload();
  await expect(rows.last()).toHaveAttribute('data-own-department-name', name);

  // A duplicate name is refused in the form.
  await page.getByTestId('add-own-department').click();
  const again = page.getByRole('dialog', { name: '自院診療科を新規作成' });
  await again.getByLabel('診療科名').fill(name);
  await again.getByTestId('save-own-department').click();
  await expect(again.getByText('この診療科名は既に登録されています')).toBeVisible();
  await again.getByRole('button', { name: 'キャンセル' }).click();
  await expect(again).toBeHidden();

  await row.getByRole('button', { name: '編集' }).click();
  const edit = page.getByRole('dialog', { name: '自院診療科を編集' });
  await edit.getByLabel('診療科名').fill(`${name}改`);
  await edit.getByTestId('save-own-department').click();
  await expect(edit).toBeHidden();
  const renamed = page.locator(`tr[data-own-department-name="${name}改"]`);
  await expect(renamed).toBeVisible();

  // With a department before it, moving up swaps the two; with none, there is nothing to reorder.
  const count = await rows.count();
  if (count > 1) {
    await page.getByRole('button', { name: `${name}改を上へ` }).click();
    await expect(rows.nth(count - 2)).toHaveAttribute('data-own-department-name', `${name}改`);
    await page.reload();
    await expect(rows.nth(count - 2)).toHaveAttribute('data-own-department-name', `${name}改`);
  }

  await renamed.getByRole('button', { name: '削除' }).click();
  const confirm = page.getByRole('dialog', { name: '自院診療科を削除' });
  await expect(confirm).toContainText('「未設定」として集計されます');
  await confirm.getByTestId('confirm-delete-own-department').click();
  await expect(renamed).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId('own-departments')).toBeVisible();
  await expect(rows).toHaveCount(count - 1);
  await expect(renamed).toHaveCount(0);
});

test('a member sees the own departments read-only', async ({ page }) => {
  await signIn(page, member, '/labels?tab=OwnDepartments');
  await expect(page.getByTestId('own-departments-read-only')).toContainText('オーナーのみ');
  await expect(page.getByTestId('add-own-department')).toHaveCount(0);
  await expect(page.getByRole('button', { name: '削除' })).toHaveCount(0);
});
