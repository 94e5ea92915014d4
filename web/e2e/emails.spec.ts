import { execFileSync } from 'node:child_process';
import { expect, test, type Page } from '@playwright/test';
import { repoRoot } from './system.ts';
import { app, screenshot, signIn } from './fixtures.ts';

/** What the in-process SMTP catcher holds, as `pnpm ops mail` prints it. */
function caughtMails(): string {
  const dataDir = process.env.E2E_DATA_DIR;
  if (!dataDir) throw new Error('E2E_DATA_DIR is not set: run through playwright.config.ts');
  return execFileSync('pnpm', ['--silent', 'ops', 'mail'], {
    cwd: repoRoot,
    env: { ...process.env, RENKEI_DATA_DIR: dataDir },
    encoding: 'utf8',
  });
}

/** The caught mail to `to` whose subject is `subject` (waits for the worker to deliver it). */
async function mailTo(to: string, subject: string): Promise<string> {
  let found = '';
  await expect
    .poll(
      () => {
        const mail = caughtMails()
          .split(/^--- /m)
          .find((m) => new RegExp(`^To: (.*<)?${to}>?$`, 'm').test(m) && m.includes(`Subject: ${subject}\n`));
        found = mail ?? '';
        return found !== '';
      },
      { timeout: 60_000, intervals: [500] },
    )
    .toBe(true);
  return found;
}

// The recipients file as Excel saves it in Japan: Shift_JIS (bytes written out: the browser side has no
// encoder), CRLF; one address is not one.
const sjis = {
  header: '8381815b838b83418368838c83582c8e8196bc2c88e397c38b408ad68352815b8368', // メールアドレス,氏名,医療機関コード
  yamada: '8e5293632091be9859', // 山田 太郎
  sato: '8db293a1', // 佐藤
  suzuki: '97e996d82089d48e71', // 鈴木 花子
};
const bytes = (hex: string) => Buffer.from(hex, 'hex');
const ascii = (text: string) => Buffer.from(text, 'latin1');

async function reportRow(page: Page, address: string) {
  return page.getByTestId('email-report-row').filter({ hasText: address });
}

test('emails: compose, recipients from a Shift_JIS file, test send, send, delivered and clicked on the report', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const n = Date.now() % 100000;
  const title = `勉強会のご案内-${n}`;
  const [a, b] = [`dr-a-${n}@example.jp`, `dr-b-${n}@example.jp`];
  const file = Buffer.concat([
    bytes(sjis.header),
    ascii(`\r\n${a},`),
    bytes(sjis.yamada),
    ascii(',\r\nnot-an-address,'),
    bytes(sjis.sato),
    ascii(`,\r\n${b},`),
    bytes(sjis.suzuki),
    ascii(',\r\n'),
  ]);

  await signIn(page, undefined, '/emails');
  await expect(page.getByTestId('emails-empty').or(page.getByTestId('email-row').first())).toBeVisible();
  await page.getByRole('link', { name: '新規作成' }).click();
  await expect(page).toHaveURL(/\/app\/emails\/new$/);

  await page.getByLabel('件名').fill(title);
  await page.getByLabel('差出人名').fill('地域連携室');
  await page.getByLabel('差出人メールアドレス').fill('renkei@demo.example.jp');
  const body = page.getByTestId('email-body-editor').locator('[contenteditable=true]');
  await body.click();
  // Tiptap links a typed URL followed by a space.
  await page.keyboard.type('循環器内科の勉強会を開催します。詳細は https://example.jp/seminar ');
  await page
    .locator('input[type=file][accept=".csv,text/csv"]')
    .setInputFiles({ name: '送信先.csv', mimeType: 'text/csv', buffer: file });
  // 添付ファイル: a small PDF, uploaded when chosen; every mail carries it under its Japanese name.
  const pdf = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');
  await page
    .locator('input[type=file]:not([accept])')
    .setInputFiles({ name: '勉強会のご案内.pdf', mimeType: 'application/pdf', buffer: pdf });
  await expect(page.getByTestId('email-attachment')).toContainText('勉強会のご案内.pdf');
  await page.getByRole('button', { name: '保存', exact: true }).click();
  await expect(page.getByTestId('email-destination-counts')).toHaveText('有効な送信先 2件・無効なアドレス 1件');
  await expect(page).toHaveURL(/\/app\/emails\/[0-9a-f-]{36}\/edit$/);
  // The saved draft reopens as the edit page (a new form, filled from the server).
  await expect(page.getByRole('heading', { name: 'メールの編集' })).toBeVisible();
  await expect(page.getByTestId('email-destination-counts')).toHaveText('有効な送信先 2件・無効なアドレス 1件');

  const tester = `tester-${n}@example.jp`;
  await page.getByLabel('テスト送信先').fill(tester);
  await page.getByRole('button', { name: 'テスト送信' }).click();
  await expect(page.getByText('テストメールを送信しました（1件）')).toBeVisible();
  const testMail = await mailTo(tester, `[テスト送信] ${title}`);
  expect(testMail).toContain(`Attachment: 勉強会のご案内.pdf (application/pdf, ${pdf.length} bytes)`);

  await page.getByRole('button', { name: '送信', exact: true }).click();
  const confirm = page.getByRole('dialog', { name: 'メールを送信' });
  await expect(confirm.getByText('2件の送信先')).toBeVisible();
  await confirm.getByRole('button', { name: '送信する' }).click();
  await expect(page).toHaveURL(/\/app\/emails\?.*status=sent/);
  const row = page.getByTestId('email-row').filter({ hasText: title });
  await expect(row).toBeVisible();
  await screenshot(page, 'emails-sent-list');

  const mail = await mailTo(a, title);
  await mailTo(b, title);
  expect(mail).toContain('配信停止:');
  expect(mail).toContain('Attachment: 勉強会のご案内.pdf (application/pdf');
  const click = /https:\/\/[^\s\]]+\/t\/c\/[A-Za-z0-9_.-]+/.exec(mail)?.[0];
  expect(click).toBeTruthy();
  // Hits within seconds of sending are link scanners, not readers: the reader clicks a little later.
  await page.waitForTimeout(11_000);
  const redirect = await page.request.get(click!, { maxRedirects: 0, ignoreHTTPSErrors: true });
  expect(redirect.status()).toBe(302);
  expect(redirect.headers().location).toBe('https://example.jp/seminar');

  await row.getByRole('link', { name: 'レポート' }).click();
  await expect(page).toHaveURL(/\/app\/emails\/[0-9a-f-]{36}\/reports/);
  await expect
    .poll(
      async () => {
        await page.reload();
        return (await (await reportRow(page, a)).innerText()).split(/\s+/).filter((t) => t === '済').length;
      },
      { timeout: 30_000, intervals: [1000] },
    )
    .toBe(3);
  await expect((await reportRow(page, b)).getByText('済')).toHaveCount(1);
  // The names came through the Shift_JIS file intact.
  await expect(await reportRow(page, a)).toContainText('山田 太郎');
  await expect(await reportRow(page, b)).toContainText('鈴木 花子');
  await expect(page.getByTestId('email-stat-配信')).toContainText('2');
  await expect(page.getByTestId('email-report-attachment')).toContainText('勉強会のご案内.pdf');
  await screenshot(page, 'emails-report');
  await page.goto(app('/emails?status=unsent'));
  await expect(page.getByTestId('email-row').filter({ hasText: title })).toHaveCount(0);
});
