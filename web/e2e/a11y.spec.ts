import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { app, demoOwner, fillSignIn, signIn } from './fixtures.ts';

/**
 * Findings left out of the check, by rule and element only, each with why; empty: every serious or critical
 * finding fails the test.
 */
const known: { rule: string; target: RegExp; why: string }[] = [];

/** The serious and critical WCAG 2 A/AA violations on the page, one line per element. */
async function violations(page: Page, where: string): Promise<string[]> {
  const { violations: found } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze();
  return found
    .filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .flatMap((v) =>
      v.nodes
        .filter(
          (n) => !known.some((k) => k.rule === v.id && (k.target.test(n.target.join(' ')) || k.target.test(n.html))),
        )
        .map((n) => `${where}: ${v.id} (${v.impact}) ${n.target.join(' ')} ${n.html.slice(0, 120)}`),
    );
}

const mainMenu = (page: Page) => page.getByRole('navigation', { name: 'メインメニュー' });

/** Presses Tab until `target` has the focus, as a keyboard user reaches it; fails if it never does. */
async function tabTo(page: Page, target: Locator, { max = 40, shift = false } = {}): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(shift ? 'Shift+Tab' : 'Tab');
    if (await target.evaluate((el) => el === document.activeElement)) return;
  }
  throw new Error(`${max} presses of Tab did not reach ${target.toString()}`);
}

// Each screen with what shows once its data has loaded: axe reads what is on the page.
const screens: { path: string; ready: (page: Page) => Locator }[] = [
  { path: '/', ready: (p) => p.getByTestId('kpi-referrals-value') },
  { path: '/medical_institutions_search', ready: (p) => p.getByTestId('institution-link').first() },
  { path: '/communications', ready: (p) => p.getByTestId('communication-card').first() },
  { path: '/tasks', ready: (p) => p.getByTestId('task-total') },
  { path: '/vocs', ready: (p) => p.getByTestId('voc-table') },
  { path: '/data_uploads', ready: (p) => p.getByRole('heading', { name: 'アップロード履歴' }) },
  { path: '/data_sync_statuses', ready: (p) => p.getByTestId('projection-statuses') },
  { path: '/medical_institutions_reports', ready: (p) => p.getByTestId('reports-total') },
  { path: '/dashboards', ready: (p) => p.getByTestId('dashboards-table') },
  { path: '/accounts', ready: (p) => p.getByTestId('account-table') },
  { path: '/labels', ready: (p) => p.getByTestId('label-table') },
  { path: '/action_lists', ready: (p) => p.getByTestId('action-list-table') },
  { path: '/alerts', ready: (p) => p.getByTestId('alerts-table') },
  { path: '/emails', ready: (p) => p.getByRole('heading', { name: 'HTMLメール' }) },
];

async function settle(page: Page, ready: Locator): Promise<void> {
  await expect(ready).toBeVisible();
  // A page shows its first figures before its last panel's: the scan waits for every loader to go.
  await expect(page.locator('main .mantine-Loader-root, main [aria-busy="true"]')).toHaveCount(0);
}

test('the owner’s screens, a CRM page and an open dialog have no serious or critical WCAG A/AA violations', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const found: string[] = [];
  await page.goto(app('/'));
  await page.waitForURL(/\/oidc\/interaction\//);
  await expect(page.locator('input[name=login]')).toBeVisible();
  found.push(...(await violations(page, 'sign-in')));
  await fillSignIn(page, demoOwner);
  await expect(page.getByTestId('user-menu')).toBeVisible();

  for (const { path, ready } of screens) {
    await page.goto(app(path));
    await settle(page, ready(page));
    found.push(...(await violations(page, path)));
    if (path === '/medical_institutions_search') {
      await page.getByTestId('institution-link').first().click();
      await page.waitForURL(/\/app\/crms\//);
      await settle(page, page.getByRole('heading', { level: 2 }).first());
      found.push(...(await violations(page, 'CRM')));
      await page.goto(`${page.url()}/referrals`);
      await settle(page, page.getByTestId('referral-monthly-table'));
      found.push(...(await violations(page, 'CRM referrals')));
    }
    if (path === '/accounts') {
      await page.getByRole('button', { name: '招待', exact: true }).click();
      await expect(page.getByRole('dialog', { name: 'アカウントを招待' })).toBeVisible();
      found.push(...(await violations(page, 'invite dialog')));
      await page.keyboard.press('Escape');
      await expect(page.getByRole('dialog')).toHaveCount(0);
    }
  }
  expect(found).toEqual([]);
});

test('tenant settings, for the support account, have no serious or critical WCAG A/AA violations', async ({ page }) => {
  await signIn(page, { email: 'support@demo.example.jp', password: demoOwner.password }, '/tenant_setting');
  await settle(page, page.getByTestId('tenant-setting-history'));
  expect(await violations(page, '/tenant_setting')).toEqual([]);
});

test('with the keyboard alone: sign in, move between screens, search, open a CRM page, dialogs, sort and pages', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await page.goto(app('/action_lists'));
  await page.waitForURL(/\/oidc\/interaction\//);
  // The sign-in form: the first field has the focus, Tab goes to the next, Enter sends.
  await expect(page.locator('input[name=login]')).toBeFocused();
  await page.keyboard.type(demoOwner.email);
  await page.keyboard.press('Tab');
  await page.keyboard.type(demoOwner.password);
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('user-menu')).toBeVisible();
  await expect(page.getByTestId('action-list-table')).toBeVisible();

  // The first Tab is the skip link; Enter moves the focus into the page.
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: '本文へ移動' })).toBeFocused();

  // A dialog takes the focus, traps it, and gives it back to its button on Escape and after saving.
  const create = page.getByRole('button', { name: '新規作成' }).first();
  await tabTo(page, create);
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: /アクションリスト/ });
  await expect(dialog.getByLabel('アクションリスト名')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(create).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog.getByLabel('アクションリスト名')).toBeFocused();
  await page.keyboard.type('キーボード操作の確認');
  await page.keyboard.press('Enter');
  await expect(dialog).toHaveCount(0);
  await expect(create).toBeFocused();
  // A toast is about the last click: it stays off the paper.
  // (The toast closes itself after 3 s, so its container's display is the check, not its visibility.)
  const toasts = page.locator('.mantine-Notifications-root[data-position="top-right"]');
  await expect(toasts.getByText('アクションリストを作成しました')).toBeVisible();
  await page.emulateMedia({ media: 'print' });
  await expect(toasts).toHaveCSS('display', 'none');
  await page.emulateMedia({ media: 'screen' });
  await expect(toasts).not.toHaveCSS('display', 'none');

  // The user menu: Enter opens it on its first item, Escape closes it and gives the focus back.
  const userMenu = page.getByTestId('user-menu');
  await tabTo(page, userMenu, { shift: true });
  await page.keyboard.press('Enter');
  await expect(page.getByRole('menuitem', { name: '個人設定' })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(page.getByRole('menuitem', { name: 'ログアウト' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('menu')).toHaveCount(0);
  await expect(userMenu).toBeFocused();

  // Through the menu to the partner search: every entry is a Tab stop, Enter opens it.
  await tabTo(page, mainMenu(page).getByRole('link', { name: '連携先管理' }));
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/medical_institutions_search/);
  const keyword = page.getByTestId('filter-keyword');
  await tabTo(page, keyword);
  await page.keyboard.type('病院');
  await page.keyboard.press('Enter');
  await page.waitForURL(/keyword=/);
  const first = page.getByTestId('institution-link').first();
  await expect(first).toBeVisible();

  // Sorting is a button in the column's head.
  const sortByName = page.getByTestId('sort-name');
  await tabTo(page, sortByName);
  await page.keyboard.press('Enter');
  await page.waitForURL(/sort_by=name/);
  // The order is said on the column's header, and the focus stays on the button for the next Enter.
  await expect(page.getByRole('columnheader', { name: /医療機関名/ })).toHaveAttribute(
    'aria-sort',
    /ascending|descending/,
  );
  await expect(sortByName).toBeFocused();

  // The pages: the arrows have names and Enter turns the page.
  const next = page.getByRole('button', { name: '次のページ' });
  await expect(next).toBeVisible();
  await next.focus();
  await page.keyboard.press('Enter');
  await page.waitForURL(/[?&]page=2/);

  await tabTo(page, first, { shift: true, max: 200 });
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/app\/crms\//);

  // A collapsed menu is out of the Tab order: from its toggle, Tab goes past the hidden entries.
  const toggle = page.getByTestId('menu-collapse');
  await tabTo(page, toggle, { shift: true, max: 200 });
  await page.keyboard.press('Enter');
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  const insideMenu = await page.evaluate(() => !!document.activeElement?.closest('[data-testid="side-menu"]'));
  expect(insideMenu).toBe(false);
});
