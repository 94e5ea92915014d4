import { expect, test } from '@playwright/test';
import { app, screenshot, signIn } from './fixtures.ts';

test.describe('communications on a phone', () => {
  test.use({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });

  test('log a visit with a label value and a task, see it on the timelines, complete the task', async ({ page }) => {
    const n = Date.now() % 100000;
    const story = `e2e訪問-${n} 院長と面談`;
    const taskTitle = `資料送付-${n}`;
    await signIn(page, undefined, '/communications');
    await expect(page.getByTestId('communication-card').first()).toBeVisible();

    await page.getByRole('button', { name: '活動を記録' }).click();
    const dialog = page.getByRole('dialog', { name: '活動の記録' });
    // Nothing picked: refused before anything is sent.
    await dialog.getByRole('button', { name: '記録する' }).click();
    await expect(dialog.getByText('医療機関を選んでください')).toBeVisible();
    await dialog.getByLabel('医療機関').fill('病院');
    await page.getByRole('option').first().click();
    const institutionName = (await dialog.getByTestId('picked-institution').textContent())!;
    await dialog.getByLabel('内容').fill(story);
    await dialog.getByLabel('面談相手').click();
    await page.getByRole('option', { name: '院長' }).click();
    await dialog.getByRole('button', { name: 'タスクを追加' }).click();
    await dialog.getByLabel('タスク1', { exact: true }).fill(taskTitle);
    await dialog.getByLabel('期限', { exact: true }).fill('2026-01-05');
    // A photo from the phone's camera or library: uploaded when chosen, shown before the record is sent.
    const photo = `駐車場-${n}.png`;
    await dialog.getByLabel('写真を選ぶ').setInputFiles({
      name: photo,
      mimeType: 'image/png',
      buffer: Buffer.from(
        'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
        'base64',
      ),
    });
    await expect(dialog.getByTestId('attachment-picker-files').getByAltText(photo)).toBeVisible();
    await screenshot(page, 'communications-form-phone');
    await dialog.getByRole('button', { name: '記録する' }).click();
    await expect(dialog).toBeHidden();

    const card = page.getByTestId('communication-card').filter({ hasText: story });
    await expect(card).toBeVisible();
    await expect(card.getByText('面談相手: 院長')).toBeVisible();
    await expect(card.getByText(taskTitle)).toBeVisible();
    // The thumbnail loads through its signed link (no sign-in header on an <img>).
    const thumbnail = card.getByTestId('communication-attachments').getByAltText(photo);
    await expect(thumbnail).toBeVisible();
    await expect.poll(() => thumbnail.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1);
    await screenshot(page, 'communications-timeline-phone');
    await page.reload();
    await expect(card).toBeVisible();

    // The institution's own timeline.
    const href = await card.getByRole('link', { name: institutionName }).getAttribute('href');
    const institutionId = /\/crms\/([^/?]+)/.exec(href!)![1]!;
    await page.goto(app(`/crms/${institutionId}/communications`));
    await expect(page.getByTestId('communication-card').filter({ hasText: story })).toBeVisible();

    // /tasks is a desktop page (spec §2).
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(app('/tasks'));
    const row = page.getByTestId('task-row').filter({ hasText: taskTitle });
    await expect(row).toBeVisible();
    await expect(row.getByText('期限切れ')).toBeVisible();
    await row.getByRole('checkbox', { name: `${taskTitle}を完了にする` }).click();
    await expect(row).toBeHidden();
    await page.getByText('完了', { exact: true }).click();
    await expect(page.getByTestId('task-row').filter({ hasText: taskTitle })).toBeVisible();
    await screenshot(page, 'tasks-finished');
  });

  test('a visit typed in the car park survives a reload, and one sent without a network is sent once when it returns', async ({
    page,
    context,
  }) => {
    const story = `e2eオフライン-${Date.now() % 100000} 部長と面談`;
    await signIn(page, undefined, '/communications');
    await expect(page.getByTestId('communication-card').first()).toBeVisible();
    await page.getByRole('button', { name: '活動を記録' }).click();
    let dialog = page.getByRole('dialog', { name: '活動の記録' });
    await dialog.getByLabel('医療機関').fill('病院');
    await page.getByRole('option').first().click();
    await dialog.getByLabel('内容').fill(story);
    await dialog.getByLabel('面談相手').click();
    await page.getByRole('option', { name: '院長' }).click();

    // The tab is reloaded before sending: what was typed is still there.
    await page.reload();
    await page.getByRole('button', { name: '活動を記録' }).click();
    dialog = page.getByRole('dialog', { name: '活動の記録' });
    await expect(dialog.getByTestId('communication-draft-restored')).toBeVisible();
    await expect(dialog.getByLabel('内容')).toHaveValue(story);

    // No network when it is sent: kept on the phone, sent by itself when the network is back.
    await context.setOffline(true);
    await dialog.getByRole('button', { name: '記録する' }).click();
    await expect(dialog.getByTestId('communication-pending')).toBeVisible();
    await screenshot(page, 'communications-offline-phone');
    await context.setOffline(false);
    await expect(dialog).toBeHidden({ timeout: 30_000 });
    const cards = page.getByTestId('communication-card').filter({ hasText: story });
    await expect(cards).toHaveCount(1);
    await page.reload();
    await expect(cards).toHaveCount(1);
  });
});
