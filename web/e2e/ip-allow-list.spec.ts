import { expect, test } from '@playwright/test';
import { app, screenshot, signIn } from './fixtures.ts';

const support = { email: 'support@demo.example.jp', password: 'Renkei-Demo-2026' };
const member = { email: 'member@demo.example.jp', password: 'Renkei-Demo-2026' };
// The e2e system runs with TRUST_PROXY=true, as behind an ingress: the forwarded address is the one checked.
const elsewhere = '198.51.100.7';

test('the support account restricts the IP addresses, and a person elsewhere sees the IP page at once', async ({
  page,
  browser,
}) => {
  test.slow();
  // A member of the same tenant, signed in from another address before the list is set.
  const away = await browser.newContext({ extraHTTPHeaders: { 'X-Forwarded-For': elsewhere } });
  const remote = await away.newPage();
  try {
    await signIn(remote, member);
    await expect(remote.getByRole('heading', { name: 'タグ管理' })).toBeVisible();

    await signIn(page, support, '/tenant_setting');
    await expect(page.getByRole('heading', { name: 'テナント設定' })).toBeVisible();
    const field = page.getByLabel('許可するIPアドレス');
    await expect(field).toHaveValue('');

    // A list without the saving request's own address asks first and names the address.
    await field.fill('203.0.113.0/24');
    await page.getByRole('button', { name: '保存', exact: true }).click();
    const confirm = page.getByRole('dialog', { name: '接続元のIPアドレスが含まれていません' });
    await expect(confirm).toBeVisible();
    await expect(confirm.getByText(/127\.0\.0\.1/)).toBeVisible();
    await screenshot(page, 'tenant-setting-ip-confirm');
    await confirm.getByRole('button', { name: 'やめる' }).click();
    await expect(confirm).toHaveCount(0);

    // Malformed ranges are refused by field.
    await field.fill('203.0.113.0/33');
    await page.getByRole('button', { name: '保存', exact: true }).click();
    await expect(page.getByText('入力内容に誤りがあります。')).toBeVisible();

    await field.fill('127.0.0.1/32\n203.0.113.0/24\n2001:db8::/32');
    await page.getByRole('button', { name: '保存', exact: true }).click();
    await expect(page.getByText('テナント設定を保存しました')).toBeVisible();

    // The person elsewhere: their next page is the IP page, although their session is valid; the API
    // itself refuses the address, not only the screen.
    const refused = remote.waitForResponse((r) => new URL(r.url()).pathname === '/api/current_user');
    await remote.goto(app('/tags'));
    expect((await refused).status()).toBe(403);
    const error = remote.getByTestId('error-page');
    await expect(error).toHaveAttribute('data-status', '403');
    await expect(
      error.getByText(/許可されたIPアドレス以外からのアクセスのため、ページを表示できません。/),
    ).toBeVisible();
    await screenshot(remote, 'ip-not-allowed-real');

    // Emptying the list opens the tenant again.
    await page.reload();
    await expect(field).toHaveValue(/127\.0\.0\.1\/32/);
    await field.fill('');
    await page.getByRole('button', { name: '保存', exact: true }).click();
    await expect(page.getByText('テナント設定を保存しました')).toBeVisible();
    // Identity answers by the new list at once; the gateway follows identity's lists by polling, so its
    // calls to command and query may keep the old list for one interval (2 s, ip-allow-lists.ts): the
    // person elsewhere may still meet the IP page once, and opens the page again as a person would.
    await expect(async () => {
      await remote.goto(app('/tags'));
      await expect(remote.getByRole('heading', { name: 'タグ管理' })).toBeVisible({ timeout: 5_000 });
    }).toPass({ timeout: 30_000 });
  } finally {
    await away.close();
  }
});
