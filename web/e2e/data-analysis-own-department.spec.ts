import { expect, test, type Page } from '@playwright/test';
import { app, demoOwner, signIn } from './fixtures.ts';

// The member account, so the owner's analysis that other specs read keeps opening on every department.
const member = { email: 'member@demo.example.jp', password: demoOwner.password };

/** Picks the first own department on /profile (or, given one, picks it again: deselected) and saves. */
async function toggleOwnDepartment(page: Page, name?: string): Promise<string> {
  await page.goto(app('/profile'));
  const select = page.getByRole('combobox', { name: '所属診療科' });
  await expect(select).toBeEnabled();
  await select.click();
  const option = name ? page.getByRole('option', { name, exact: true }) : page.getByRole('option').first();
  const picked = (await option.innerText()).trim();
  await option.click();
  await expect(select).toHaveValue(name ? '' : picked);
  await page.getByRole('button', { name: '保存' }).click();
  await expect(page.getByText('個人設定を保存しました')).toBeVisible();
  return picked;
}

test('data analysis opens on the own department set on /profile, in the link, and can be cleared', async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page, member, '/profile');
  const department = await toggleOwnDepartment(page);
  try {
    await page.goto(app('/data_analysis'));
    // The choice is written into the link (a colleague who opens it sees the same figures).
    await expect(page).toHaveURL(/[?&]own=/);
    await expect(page.getByTestId('analysis-conditions')).toContainText(`自院診療科 ${department}`);
    await expect(page.getByText('プロフィールの所属診療科')).toBeVisible();

    // Deselected: every department, and a reload does not bring the profile's department back.
    await page.getByRole('combobox', { name: '自院診療科' }).click();
    await page.getByRole('option', { name: department, exact: true }).click();
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('analysis-conditions')).toContainText('自院診療科 すべて');
    await page.reload();
    await expect(page.getByTestId('analysis-conditions')).toContainText('自院診療科 すべて');
    await expect(page.getByText('プロフィールの所属診療科')).toBeHidden();
  } finally {
    await toggleOwnDepartment(page, department);
  }
});
