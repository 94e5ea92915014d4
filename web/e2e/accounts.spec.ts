import { execFileSync } from 'node:child_process';
import { expect, test, type Page } from '@playwright/test';
import { app, screenshot, signIn } from './fixtures.ts';
import { repoRoot } from './system.ts';

const menu = (page: Page) => page.getByRole('navigation', { name: 'メインメニュー' });

/** The sign-up link of the newest mail to `address` in the install's SMTP catcher. */
function invitationLink(address: string): string | null {
  const out = execFileSync('pnpm', ['--silent', 'ops', 'mail'], {
    cwd: repoRoot,
    env: { ...process.env, RENKEI_DATA_DIR: process.env.E2E_DATA_DIR },
    encoding: 'utf8',
  });
  const mails = out.split(/^--- /m).filter((m) => m.includes(`To: ${address}`));
  const link = /https:\/\/\S+\/app\/accounts\/confirmation\?token=[\w%-]+/.exec(mails.at(-1) ?? '');
  return link ? link[0] : null;
}

test('an owner invites a member, who sets a password, is signed in by it and cannot open the owner pages', async ({
  page,
  browser,
}) => {
  // Two people, an invitation mail and a sign-out: more than one page's worth on a loaded machine.
  test.setTimeout(180_000);
  const suffix = Date.now() % 100000;
  const email = `invited-${suffix}@demo.example.jp`;
  const name = `招待 太郎${suffix}`;
  const password = `Invited-${suffix}-pass`;

  await signIn(page, undefined, '/accounts');
  await expect(page.getByRole('heading', { name: 'アカウント管理' })).toBeVisible();
  await page.getByRole('button', { name: '招待', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'アカウントを招待' });
  await dialog.getByLabel('氏名').fill(name);
  await dialog.getByLabel('メールアドレス').fill(email);
  await expect(dialog.getByText(/登録用のリンク（7日間有効）を送ります/)).toBeVisible();
  await expect(dialog.getByLabel('初期パスワード')).toHaveCount(0);
  await dialog.getByRole('button', { name: '保存' }).click();
  const row = page.locator(`tr[data-account-name="${name}"]`);
  await expect(row.getByText('招待中')).toBeVisible();
  await expect(row.getByText(email)).toBeVisible();
  await screenshot(page, 'accounts-invited');

  await expect.poll(() => invitationLink(email), { timeout: 20_000 }).not.toBeNull();
  const link = invitationLink(email)!;

  // The invited person, in their own browser.
  const context = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'ja-JP' });
  const member = await context.newPage();
  await member.goto(link);
  await member.waitForURL(/\/oidc\/accounts\/confirmation\?token=/);
  await expect(member.getByRole('heading', { name: 'アカウント登録' })).toBeVisible();
  await expect(member.getByText(/パスワードは8文字以上、128文字以内で入力してください。/)).toBeVisible();
  // Every page the browser shows from here: the sign-in page must not be one of them (the provider's
  // redirects through the interaction are not shown, so they are not recorded).
  const shown: string[] = [];
  member.on('framenavigated', (frame) => {
    if (frame === member.mainFrame()) shown.push(frame.url());
  });
  await member.locator('input[name=password]').fill(password);
  await member.locator('input[name=password_confirmation]').fill(password);
  await member.getByRole('button', { name: '登録する' }).click();

  // Signed in by setting the password: the app opens with the person's name, nothing typed again.
  await member.waitForURL((url) => url.pathname.startsWith('/app/') && !url.pathname.startsWith('/app/auth/'));
  await expect(member.getByTestId('user-menu')).toHaveText(name);
  expect(shown.filter((url) => new URL(url).pathname.startsWith('/oidc/'))).toEqual([]);
  await expect(member.locator('input[name=login]')).toHaveCount(0);
  await screenshot(member, 'accounts-confirmation-signed-in');

  // The link worked once.
  const reused = await context.newPage();
  await reused.goto(link);
  await expect(reused.getByText(/使用済みか有効期限（送信から7日間）が切れています/)).toBeVisible();
  await expect(reused.getByText(/招待メールの再送を依頼してください/)).toBeVisible();
  await reused.close();

  await expect(menu(member).getByText('タグ管理')).toBeVisible();
  await expect(menu(member).getByText('アカウント管理')).toHaveCount(0);

  await member.goto(app('/accounts'));
  const error = member.getByTestId('error-page');
  await expect(error).toHaveAttribute('data-status', '403');
  await expect(error.getByText(/ページを表示するには、アクセス権限が必要です。/)).toBeVisible();
  await screenshot(member, 'accounts-member-403');
  await member.goto(app('/tags'));
  await expect(member.getByTestId('user-menu')).toHaveText(name);

  // The owner sees the person registered, and deletes the account while its session is open.
  await page.reload();
  const registered = page.locator(`tr[data-account-name="${name}"]`);
  await expect(registered.getByText('登録済み')).toBeVisible();
  await registered.getByRole('button', { name: '削除' }).click();
  await page.getByRole('button', { name: '削除する' }).click();
  await expect(page.locator(`tr[data-account-name="${name}"]`)).toHaveCount(0);

  // The member's next call is refused at once (401, tokens of a deleted account end with it): the error page.
  await member.goto(app('/tags'));
  const refused = member.getByTestId('error-page');
  await expect(refused).toHaveAttribute('data-status', '401', { timeout: 20_000 });
  // 「TOPページに戻る」 ends the deleted account's session and reaches the sign-in promptly (issue 15).
  await refused.getByRole('button', { name: 'TOPページに戻る' }).click();
  await expect(member.locator('input[name=login]')).toBeVisible({ timeout: 10_000 });
  await context.close();
});
