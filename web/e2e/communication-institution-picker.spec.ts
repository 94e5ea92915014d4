import { expect, test, type Locator, type Page } from '@playwright/test';
import { app, baseURL, signIn } from './fixtures.ts';

/** The bearer token of the query service, from the search the communications page makes on opening. */
function captureQueryToken(page: Page): () => string {
  let token = '';
  page.on('request', (request) => {
    if (request.url().includes('/api/communications/search_results'))
      token = request.headers()['authorization'] ?? token;
  });
  return () => {
    if (!token) throw new Error('no query call seen yet');
    return token;
  };
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test.describe('institution picker on a phone', () => {
  // Permission given up front, as a user who allowed location for the site; the position is set below,
  // once a demo institution's coordinates are known.
  test.use({
    viewport: { width: 375, height: 740 },
    isMobile: true,
    hasTouch: true,
    permissions: ['geolocation'],
    geolocation: { latitude: 35, longitude: 138.4 },
  });

  test('pick an institution near the phone, log a visit, find it under 最近の医療機関', async ({ page, context }) => {
    const story = `e2e近くから-${Date.now() % 100000}`;
    const queryToken = captureQueryToken(page);
    await signIn(page, undefined, '/communications');
    await expect(page.getByTestId('communication-card').first()).toBeVisible();

    // A demo institution that is open and has coordinates: the phone stands at its door.
    const found = await page.request.post(`${baseURL()}/api/medical_institutions/search_results`, {
      headers: { authorization: queryToken() },
      data: { keyword: '医療センター', running_statuses: ['open'], per_page: 50 },
    });
    expect(found.status()).toBe(200);
    const target = (
      (await found.json()) as { data: { name: string; latitude: number | null; longitude: number | null }[] }
    ).data.find((mi) => mi.latitude !== null && mi.longitude !== null)!;
    expect(target, 'an open demo institution with coordinates').toBeTruthy();
    await context.setGeolocation({ latitude: target.latitude!, longitude: target.longitude! });

    // On a phone the form is the dialog of /communications (spec §2: /communications/new is a desktop page).
    await page.getByRole('button', { name: '活動を記録' }).click();
    let dialog = page.getByRole('dialog', { name: '活動の記録' });
    await expect(
      dialog.getByTestId('recent-institutions').getByRole('heading', { name: '最近の医療機関' }),
    ).toBeVisible();
    const nearby = dialog.getByTestId('nearby-institutions');
    await nearby.getByRole('button', { name: '現在地の近くを探す' }).click();
    const pick = nearby.getByRole('button', { name: new RegExp(`^${escapeRegExp(target.name)}`) }).first();
    await expect(pick).toBeVisible();
    // Standing at its door: metres away, not kilometres.
    await expect(pick).toContainText(/\d+ m ・ /);
    // The dialog alone: a full-page shot of the page behind it says nothing.
    await dialog.screenshot({ path: 'test-results/screenshots/communication-institution-picker-nearby.png' });
    await pick.click();
    await expect(dialog.getByTestId('picked-institution')).toHaveText(target.name);

    await dialog.getByLabel('内容').fill(story);
    await dialog.getByLabel('面談相手').click();
    await page.getByRole('option', { name: '院長' }).click();
    await dialog.getByRole('button', { name: '記録する' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId('communication-card').filter({ hasText: story })).toBeVisible();

    // The dialog, opened again: the institution is among the recent ones, dated today.
    const today = new Date().toLocaleDateString('sv-SE', { timeZone: 'Asia/Tokyo' }).replaceAll('-', '/');
    const recentIn = (scope: Locator | Page) =>
      scope
        .getByTestId('recent-institutions')
        .getByRole('button', { name: new RegExp(`^${escapeRegExp(target.name)}`) })
        .first();
    await page.getByRole('button', { name: '活動を記録' }).click();
    dialog = page.getByRole('dialog', { name: '活動の記録' });
    await expect(recentIn(dialog)).toContainText(`最終記録 ${today}`);
    await dialog.screenshot({ path: 'test-results/screenshots/communication-institution-picker-recent.png' });
    // Closed untouched (a pick would be kept as a draft for the next form).
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();

    // The page of the form (a desktop page), after a reload: the same recent institution.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(app('/communications/new'));
    await expect(recentIn(page)).toContainText(`最終記録 ${today}`);
    await recentIn(page).click();
    await expect(page.getByTestId('picked-institution')).toHaveText(target.name);
  });
});
