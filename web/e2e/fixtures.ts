import { expect, type Page } from '@playwright/test';

export const demoOwner = { email: 'owner@demo.example.jp', password: 'Renkei-Demo-2026' };
export const liteTenant = {
  slug: 'lite',
  name: 'ライト記念病院',
  email: 'owner@lite.example.jp',
  password: 'Lite-Owner-2026',
};

export const baseURL = () => {
  const url = process.env.E2E_BASE_URL;
  if (!url) throw new Error('E2E_BASE_URL is not set: run through playwright.config.ts (global setup starts Renkei)');
  return url;
};

export const app = (path: string) => `${baseURL()}/app${path}`;

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: true });
}

/** Through the provider's own sign-in page, as a user would. */
export async function fillSignIn(page: Page, user: { email: string; password: string }): Promise<void> {
  await page.waitForURL(/\/oidc\/interaction\//);
  await page.locator('input[name=login]').fill(user.email);
  await page.locator('input[name=password]').fill(user.password);
  await page.getByRole('button', { name: 'ログイン' }).click();
}

export async function signIn(
  page: Page,
  user: { email: string; password: string } = demoOwner,
  path = '/tags',
): Promise<void> {
  await page.goto(app(path));
  await fillSignIn(page, user);
  await page.waitForURL((url) => url.pathname.startsWith('/app/') && !url.pathname.startsWith('/app/auth/'));
  await expect(page.getByTestId('user-menu')).toBeVisible();
}

/**
 * An institution's option in a picker, by its name: the option reads the name, then the address under it
 * (which tells institutions of the same name apart), so the name is matched whole at the start.
 */
export const institutionOption = (name: string): RegExp =>
  new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( |$)`);
