import { expect, test } from '@playwright/test';
import fs from 'node:fs';
import { app, screenshot, signIn } from './fixtures.ts';

test('communication import: a file with one bad row, its row error, the created record, then the undo', async ({
  page,
}) => {
  const n = Date.now() % 100000;
  const story = `e2eインポート-${n} 院長と面談`;
  const filename = `activities-${n}.csv`;
  await signIn(page, undefined, '/labels/communications/import');
  await expect(page).toHaveTitle('活動記録のインポート | Renkei');
  await expect(page.getByTestId('page-back-link')).toHaveAttribute('href', '/app/labels?tab=CommunicationLabels');

  const [template] = await Promise.all([page.waitForEvent('download'), page.getByTestId('template-utf8').click()]);
  const header = fs
    .readFileSync((await template.path())!, 'utf8')
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)[0]!;
  const columns = header.split(',');
  expect(columns.slice(0, 4)).toEqual(['医療機関コード', '医療機関名', '活動日', '種別']);
  const row = (values: Record<string, string>) => columns.map((c) => values[c] ?? '').join(',');
  // The second row names an institution the master does not have: refused by its row number (3行目, as a
  // spreadsheet shows it: the header is row 1).
  const csv =
    [
      header,
      row({ 医療機関コード: '2210111502', 活動日: '2026-04-01', 種別: '訪問', 内容: story, 面談相手: '院長' }),
      row({ 医療機関名: `存在しない病院-${n}`, 活動日: '2026-04-02', 種別: '電話', 内容: 'x' }),
    ].join('\r\n') + '\r\n';
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByTestId('import-file').click()]);
  await chooser.setFiles({ name: filename, mimeType: 'text/csv', buffer: Buffer.from(csv, 'utf8') });
  await page.getByTestId('import-upload').click();
  const record = page.locator(`tr[data-import-filename="${filename}"]`).first();
  await expect(record).toHaveAttribute('data-import-status', 'completed', { timeout: 60_000 });
  await expect(record.locator('td').nth(3)).toHaveText('1');
  await expect(record.locator('td').nth(4)).toHaveText('1');
  await record.getByRole('button', { name: /エラー1件/ }).click();
  await expect(page.getByTestId('import-errors')).toContainText(`3行目: 医療機関名「存在しない病院-${n}」`);
  await screenshot(page, 'communication-import');

  // The import and the communications read model are separate projections: a reload may be needed.
  await page.goto(app(`/communications?keyword=${encodeURIComponent(`e2eインポート-${n}`)}`));
  const card = page.getByTestId('communication-card').filter({ hasText: story });
  await expect(async () => {
    await page.reload();
    await expect(card).toBeVisible({ timeout: 3000 });
  }).toPass({ timeout: 30_000 });
  await expect(card.getByText('葵医療センター')).toBeVisible();
  await expect(card.getByText('面談相手: 院長')).toBeVisible();

  await page.goto(app('/labels/communications/import'));
  await page.locator(`tr[data-import-filename="${filename}"]`).getByTestId('undo-import').click();
  await page.getByTestId('confirm-undo-import').click();
  await expect(page.locator(`tr[data-import-filename="${filename}"]`)).toHaveCount(0);
  await page.goto(app(`/communications?keyword=${encodeURIComponent(`e2eインポート-${n}`)}`));
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId('communication-card').filter({ hasText: story })).toHaveCount(0, { timeout: 3000 });
  }).toPass({ timeout: 30_000 });
});
