import { expect, test } from '@playwright/test';
import { app, demoOwner, fillSignIn, screenshot, signIn } from './fixtures.ts';

test('signs in through the real provider with the demo account', async ({ page }) => {
  await page.goto(app('/tags'));
  await page.waitForURL(/\/oidc\/interaction\//);
  await expect(page.locator('html')).toHaveAttribute('lang', 'ja');
  await screenshot(page, 'sign-in-page');
  await fillSignIn(page, demoOwner);
  await page.waitForURL(/\/app\/tags/);
  await expect(page.getByRole('heading', { name: 'タグ管理' })).toBeVisible();
  await expect(page).toHaveTitle('タグ管理 | Renkei');
  await screenshot(page, 'signed-in-tags');
});

test("a wrong password shows the provider's Japanese error", async ({ page }) => {
  await page.goto(app('/tags'));
  await fillSignIn(page, { email: demoOwner.email, password: 'not-the-password' });
  await expect(page.getByText('メールアドレス（ログインID）またはパスワードが正しくありません。')).toBeVisible();
  expect(new URL(page.url()).pathname).toMatch(/^\/oidc\//);
  await screenshot(page, 'sign-in-wrong-password');
});

test('logout returns to sign-in, and a protected URL then asks to sign in again', async ({ page }) => {
  await signIn(page);
  await page.getByTestId('user-menu').click();
  await page.getByRole('menuitem', { name: 'ログアウト' }).click();
  await page.waitForURL(/\/oidc\/interaction\//);
  await expect(page.getByRole('button', { name: 'ログイン' })).toBeVisible();
  await screenshot(page, 'after-logout');
  await page.goto(app('/profile'));
  await page.waitForURL(/\/oidc\/interaction\//);
  await expect(page.locator('input[name=password]')).toBeVisible();
});

test('the header logo and /login lead a signed-in user to the top page', async ({ page }) => {
  await signIn(page, demoOwner, '/profile');
  await page.getByTestId('logo').click();
  await page.waitForURL((url) => url.pathname !== '/app/profile' && url.pathname !== '/app/login');
  await expect(page.getByTestId('user-menu')).toBeVisible();
});
