import { expect, test, type Locator, type Page } from '@playwright/test';
import { app, liteTenant, screenshot, signIn } from './fixtures.ts';

const menu = (page: Page) => page.getByRole('navigation', { name: 'メインメニュー' });

test('a tenant whose features lack tags has no tag menu and /tags answers the 403 page', async ({ page }) => {
  await signIn(page, liteTenant, '/profile');
  await expect(menu(page).getByText('連携先管理')).toBeVisible();
  await expect(menu(page).getByText('タグ管理')).toHaveCount(0);
  // The refusal is the page's answer, not a defect: nothing of it reaches the console.
  const logged: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') logged.push(message.text());
  });
  await page.goto(app('/tags'));
  const error = page.getByTestId('error-page');
  await expect(error).toHaveAttribute('data-status', '403');
  expect(logged.filter((text) => /ApiError|権限/.test(text))).toEqual([]);
  await expect(error.getByText('指定されたページは表示できません')).toBeVisible();
  await expect(error.getByText(/ページを表示するには、アクセス権限が必要です。/)).toBeVisible();
  await expect(error.getByRole('button', { name: 'TOPページに戻る' })).toBeVisible();
  await screenshot(page, 'error-403-feature');
});

test('on a 1366×768 laptop screen every entry of the owner menu shows without scrolling', async ({ page }) => {
  await page.setViewportSize({ width: 1366, height: 768 });
  await signIn(page, undefined, '/profile');
  // The last entries before the support link: hidden below the fold when the menu scrolls.
  await expect(menu(page).getByText('データ連携状況')).toBeInViewport();
  const list = menu(page).locator('> div');
  const { scrollHeight, clientHeight } = await list.evaluate((el) => ({
    scrollHeight: el.scrollHeight,
    clientHeight: el.clientHeight,
  }));
  expect(scrollHeight).toBeLessThanOrEqual(clientHeight);
});

test('an unknown route shows the 404 page', async ({ page }) => {
  await signIn(page);
  await page.goto(app('/no_such_page'));
  const error = page.getByTestId('error-page');
  await expect(error).toHaveAttribute('data-status', '404');
  await expect(error.getByText('ページが見つかりません')).toBeVisible();
  await screenshot(page, 'error-404');
  await error.getByRole('button', { name: 'TOPページに戻る' }).click();
  await page.waitForURL((url) => url.pathname !== '/app/no_such_page');
  await expect(page.getByTestId('user-menu')).toBeVisible();
});

test('a server failure shows the 500 page', async ({ page }) => {
  await signIn(page, undefined, '/profile');
  await page.route('**/api/tags?**', (route) =>
    route.fulfill({
      status: 500,
      contentType: 'application/json',
      body: JSON.stringify({ status: 500, message: '一時的なエラーが発生しました。' }),
    }),
  );
  await menu(page).getByText('タグ管理').click();
  const error = page.getByTestId('error-page');
  await expect(error).toHaveAttribute('data-status', '500');
  await expect(error.getByText('一時的なエラーが発生しました')).toBeVisible();
  await screenshot(page, 'error-500');
});

test('a current-user 403 for the address shows the IP page', async ({ page }) => {
  await page.route('**/api/current_user', (route) =>
    route.fulfill({
      status: 403,
      contentType: 'application/json',
      body: JSON.stringify({ status: 403, message: 'forbidden', sub_code: 'IP_NOT_ALLOWED' }),
    }),
  );
  await page.goto(app('/tags'));
  await page.locator('input[name=login]').fill('owner@demo.example.jp');
  await page.locator('input[name=password]').fill('Renkei-Demo-2026');
  await page.getByRole('button', { name: 'ログイン' }).click();
  const error = page.getByTestId('error-page');
  await expect(error).toHaveAttribute('data-status', '403');
  await expect(error.getByText(/許可されたIPアドレス以外からのアクセスのため、ページを表示できません。/)).toBeVisible();
  await screenshot(page, 'error-403-ip');
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });

  test('the drawer opens and closes, and /tags and /profile show the unsupported notice', async ({ page }) => {
    await signIn(page);
    const notice = page.getByText('このページはスマートフォンでの閲覧に対応していません');
    await expect(notice).toBeVisible();
    await screenshot(page, 'phone-tags-unsupported');

    const drawer = page.getByTestId('side-menu');
    const left = async () => (await drawer.boundingBox())?.x ?? -1;
    await expect(drawer).toHaveAttribute('data-opened', 'false');
    await expect.poll(left).toBeLessThan(0);
    const height = async (l: Locator) => (await l.boundingBox())?.height ?? 0;
    expect(await height(page.getByTestId('drawer-toggle'))).toBeGreaterThanOrEqual(44);
    await page.getByTestId('drawer-toggle').click();
    await expect(drawer).toHaveAttribute('data-opened', 'true');
    await expect.poll(left).toBeGreaterThanOrEqual(0);
    // Thumb-sized entries.
    expect(await height(drawer.getByRole('link', { name: '連携先管理' }))).toBeGreaterThanOrEqual(44);
    await screenshot(page, 'phone-drawer-open');
    await page.getByTestId('drawer-toggle').click();
    await expect(drawer).toHaveAttribute('data-opened', 'false');
    await expect.poll(left).toBeLessThan(0);

    await page.goto(app('/profile'));
    await expect(notice).toBeVisible();
    await expect(page.getByRole('heading', { name: '個人設定' })).toHaveCount(0);
  });
});
