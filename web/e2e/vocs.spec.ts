import { expect, test } from '@playwright/test';
import { app, screenshot, signIn } from './fixtures.ts';

test('vocs: create one from a communication, find it on /vocs, filter, edit its status', async ({ page }) => {
  const n = Date.now() % 100000;
  const title = `e2e返書の要望-${n}`;
  await signIn(page, undefined, '/communications');
  const card = page.getByTestId('communication-card').first();
  await expect(card).toBeVisible();

  // From the communication: its institution and the link are given.
  await card.getByRole('button', { name: 'VOCを登録' }).click();
  const dialog = page.getByRole('dialog', { name: 'VOCを登録' });
  await expect(dialog.getByTestId('picked-institution')).toBeVisible();
  await dialog.getByRole('button', { name: '保存' }).click();
  await expect(dialog.getByText('タイトルを入力してください')).toBeVisible();
  await dialog.getByRole('textbox', { name: 'タイトル' }).fill(title);
  await dialog.getByRole('textbox', { name: '内容', exact: true }).fill('返書をもう少し早くほしいとのこと');
  await dialog.getByRole('combobox', { name: '優先度' }).click();
  await page.getByRole('option', { name: '高' }).click();
  await dialog.getByRole('combobox', { name: 'グループ' }).click();
  await page.getByRole('option', { name: '紹介・返書' }).click();
  await screenshot(page, 'vocs-form-from-communication');
  await dialog.getByRole('button', { name: '保存' }).click();
  await expect(dialog).toBeHidden();
  const link = card.getByTestId('communication-voc').filter({ hasText: title });
  await expect(link).toBeVisible();

  // The card's link opens /vocs filtered to that communication.
  await link.click();
  await expect(page).toHaveURL(/\/app\/vocs\?.*communication=/);
  const row = page.getByTestId('voc-row').filter({ hasText: title });
  await expect(row).toBeVisible();
  await expect(row.getByText('未着手')).toBeVisible();
  await expect(row.getByText('紹介・返書')).toBeVisible();

  // Filters live in the URL.
  await page.goto(app('/vocs'));
  await page.getByRole('combobox', { name: '優先度' }).click();
  await page.getByRole('option', { name: '高' }).click();
  await expect(page).toHaveURL(/priority=HIGH/);
  await expect(row).toBeVisible();
  await page.getByRole('combobox', { name: 'ステータス' }).click();
  await page.getByRole('option', { name: '対応済' }).click();
  await expect(page).toHaveURL(/status=COMPLETED/);
  await expect(row).toBeHidden();

  // Edit its status; seen at once and after a reload.
  await page.goto(app('/vocs?status=NOT_STARTED&priority=HIGH'));
  await row.getByRole('button', { name: '編集' }).click();
  const edit = page.getByRole('dialog', { name: 'VOCを編集' });
  await expect(edit.getByRole('textbox', { name: 'タイトル' })).toHaveValue(title);
  await edit.getByRole('combobox', { name: 'ステータス' }).click();
  await page.getByRole('option', { name: '対応中' }).click();
  await edit.getByRole('textbox', { name: '対応内容' }).fill('医事課に返書の発送を確認');
  await edit.getByRole('button', { name: '保存' }).click();
  await expect(edit).toBeHidden();
  await expect(row).toBeHidden();
  await page.goto(app('/vocs?status=IN_PROGRESS'));
  await expect(row).toBeVisible();
  await expect(row.getByText('対応中')).toBeVisible();
  await screenshot(page, 'vocs-list');
  await page.reload();
  await expect(row).toBeVisible();

  // Printed for a meeting: the table without the frame, the page's buttons and the 編集/削除 column.
  await page.emulateMedia({ media: 'print' });
  await expect(row.getByText(title)).toBeVisible();
  await expect(page.locator('.mantine-AppShell-navbar')).toBeHidden();
  await expect(page.getByRole('button', { name: '新規登録' })).toBeHidden();
  await expect(row.getByRole('button', { name: '編集' })).toBeHidden();
  await expect(page.getByRole('columnheader', { name: '操作' })).toBeHidden();
  await screenshot(page, 'vocs-print');
  await page.emulateMedia({ media: 'screen' });

  // The institution's CRM page shows its latest VOCs.
  const href = await row.getByRole('link').first().getAttribute('href');
  await page.goto(app(href!.replace(/^\/app/, '')));
  await expect(page.getByTestId('institution-vocs').getByText(title)).toBeVisible();
  await screenshot(page, 'vocs-crm');
  // And so does its printable partner chart, with the open ones.
  await page.goto(app(`${href!.replace(/^\/app/, '')}?view=karte`));
  await expect(page.getByTestId('partner-chart-vocs').getByText(title)).toBeVisible();
});
