import { expect, test } from '@playwright/test';
import { signIn } from './fixtures.ts';

test('a tab of an older build reloads into the new one when its next screen is no longer on the server', async ({
  page,
}) => {
  await signIn(page, undefined, '/profile');
  await expect(page.getByRole('heading', { name: '個人設定' })).toBeVisible();
  const loaded = new Set<string>();
  for (const entry of await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name)))
    loaded.add(new URL(entry).pathname);

  // The server got a new build: this tab's chunks that it has not loaded yet are gone, and its page names
  // another main script.
  await page.route('**/app/assets/*.js', (route) =>
    loaded.has(new URL(route.request().url()).pathname) ? route.fallback() : route.fulfill({ status: 404 }),
  );
  await page.route(
    (url) => url.pathname === '/app/',
    async (route) => {
      if (route.request().resourceType() !== 'fetch') return route.fallback();
      const response = await route.fetch();
      const body = (await response.text()).replace(/assets\/main-[^"]+\.js/, 'assets/main-NEWBUILD.js');
      await route.fulfill({ response, body });
      // The reload then gets the server's own files.
      await page.unrouteAll({ behavior: 'ignoreErrors' });
    },
  );

  const reloaded = page.waitForEvent('load');
  await page.getByRole('navigation', { name: 'メインメニュー' }).getByText('タグ管理').click();
  await reloaded;
  await expect(page).toHaveURL(/\/app\/tags/);
  await expect(page.getByRole('heading', { name: 'タグ管理' })).toBeVisible();
  await expect(page.getByTestId('error-page')).toHaveCount(0);
});
