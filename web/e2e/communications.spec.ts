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

    // On a desktop the institution's timeline leads back to its page (a phone has the frame's back link).
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('link', { name: '医療機関ページへ戻る' }).click();
    await expect(page).toHaveURL(new RegExp(`/crms/${institutionId}(\\?|$)`));

    // /tasks is a desktop page (spec §2). A task added in the form is the writer's: under 自分のタスク.
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
  test('a visit logged without a network is sent with its form closed, exactly once, when the network returns', async ({
    page,
    context,
  }) => {
    const story = `e2e未送信-${Date.now() % 100000} 閉じた後に送信`;
    await signIn(page, undefined, '/communications');
    await expect(page.getByTestId('communication-card').first()).toBeVisible();
    await page.getByRole('button', { name: '活動を記録' }).click();
    const dialog = page.getByRole('dialog', { name: '活動の記録' });
    await dialog.getByLabel('医療機関').fill('病院');
    await page.getByRole('option').first().click();
    await dialog.getByLabel('内容').fill(story);
    await dialog.getByLabel('面談相手').click();
    await page.getByRole('option', { name: '院長' }).click();

    await context.setOffline(true);
    await dialog.getByRole('button', { name: '記録する' }).click();
    await expect(dialog.getByTestId('communication-pending')).toBeVisible();
    // The form is closed (it unmounts): the frame still holds the record and says so.
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    const pending = page.getByTestId('pending-communications');
    await expect(pending).toHaveText('未送信 1件');
    await screenshot(page, 'communications-pending-indicator-phone');
    // Kept while offline: nothing is lost by waiting past the sender's retry.
    await page.waitForTimeout(11_000);
    await expect(pending).toHaveText('未送信 1件');

    await context.setOffline(false);
    await expect(page.getByText('未送信だった活動記録を送信しました')).toBeVisible({ timeout: 30_000 });
    await expect(pending).toBeHidden();
    const cards = page.getByTestId('communication-card').filter({ hasText: story });
    await expect(cards).toHaveCount(1);
    // The form opens blank: the record left it for good.
    await page.getByRole('button', { name: '活動を記録' }).click();
    await expect(dialog.getByLabel('内容')).toHaveValue('');
    await expect(dialog.getByTestId('communication-draft-restored')).toHaveCount(0);
    await page.keyboard.press('Escape');
    // After the sender's next rounds and a reload (the search API again): still exactly one.
    await page.waitForTimeout(11_000);
    await page.reload();
    await expect(page.getByTestId('communication-card').first()).toBeVisible();
    await expect(cards).toHaveCount(1);
    await expect(pending).toBeHidden();
  });
});

test.describe('communications on a small phone (360 × 640)', () => {
  test.use({ viewport: { width: 360, height: 640 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true });

  test('a thumb reaches every action: 44 px targets, a photo’s 外す button in view, nothing wider than the screen', async ({
    page,
  }) => {
    await signIn(page, undefined, '/communications');
    const card = page.getByTestId('communication-card').first();
    await expect(card).toBeVisible();
    const heightOf = async (target: ReturnType<typeof page.getByRole>) => (await target.boundingBox())!.height;
    expect(await heightOf(page.getByRole('button', { name: '活動を記録' }))).toBeGreaterThanOrEqual(44);
    for (const name of ['削除', 'VOCを登録', '送信'])
      expect(await heightOf(card.getByRole('button', { name, exact: true }))).toBeGreaterThanOrEqual(44);
    expect(await heightOf(card.getByRole('button', { name: /^いいね/ }))).toBeGreaterThanOrEqual(44);

    await page.getByRole('button', { name: '活動を記録' }).click();
    const dialog = page.getByRole('dialog', { name: '活動の記録' });
    const photo = `名刺-${Date.now() % 100000}.png`;
    await dialog.getByLabel('写真を選ぶ').setInputFiles({
      name: photo,
      mimeType: 'image/png',
      buffer: Buffer.from(
        'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
        'base64',
      ),
    });
    const files = dialog.getByTestId('attachment-picker-files');
    await expect(files.getByAltText(photo)).toBeVisible();
    // The remove button lies whole inside its card (a card cut to the thumbnail hid half of it).
    const remove = files.getByRole('button', { name: `${photo}を外す` });
    await remove.scrollIntoViewIfNeeded();
    const photoCard = files
      .locator('.mantine-Card-root')
      .filter({ has: page.getByRole('button', { name: `${photo}を外す` }) });
    const [button, frame] = [(await remove.boundingBox())!, (await photoCard.boundingBox())!];
    expect(button.x + button.width).toBeLessThanOrEqual(frame.x + frame.width);
    // Nothing in the card is pushed past its edge (where the card would clip it).
    expect(await photoCard.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    expect(button.height).toBeGreaterThanOrEqual(44);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await screenshot(page, 'communications-form-photo-360');
    await remove.click();
    await expect(files).toBeHidden();
  });
});

test.describe('editing a communication', () => {
  test('edit the story, a label value and the attachments; a stale edit is refused and keeps what was typed', async ({
    page,
    context,
  }) => {
    const n = Date.now() % 100000;
    const story = `e2e編集前-${n}`;
    await signIn(page, undefined, '/communications');
    await expect(page.getByTestId('communication-card').first()).toBeVisible();
    await page.getByRole('button', { name: '活動を記録' }).click();
    const create = page.getByRole('dialog', { name: '活動の記録' });
    await create.getByLabel('医療機関').fill('病院');
    await page.getByRole('option').first().click();
    await create.getByLabel('カテゴリ').fill('定期訪問');
    await create.getByLabel('目的').fill(`紹介のお礼-${n}`);
    await create.getByLabel('内容').fill(story);
    await create.getByLabel('面談相手').click();
    await page.getByRole('option', { name: '院長' }).click();
    await create.getByRole('button', { name: '記録する' }).click();
    await expect(create).toBeHidden();

    // The edit form has the create form's fields, filled with the record's values.
    const card = () => page.getByTestId('communication-card').filter({ hasText: `e2e編集` }).first();
    await card().getByRole('button', { name: '編集' }).click();
    let dialog = page.getByRole('dialog', { name: '活動記録の編集' });
    await expect(dialog.getByLabel('内容')).toHaveValue(story);
    await expect(dialog.getByLabel('面談相手')).toHaveValue('院長');
    await expect(dialog.getByLabel('カテゴリ')).toHaveValue('定期訪問');
    await expect(dialog.getByLabel('目的')).toHaveValue(`紹介のお礼-${n}`);
    // The caller acted (the demo owner): shown by name.
    await expect(dialog.getByLabel('活動した担当者')).not.toHaveValue('');
    await dialog.getByLabel('目的').fill(`新任医師の紹介-${n}`);
    await dialog.getByLabel('内容').fill(`e2e編集後-${n}`);
    await dialog.getByLabel('面談相手').click();
    await page.getByRole('option', { name: '事務長' }).click();
    const file = `議事録-${n}.pdf`;
    await dialog.getByLabel('ファイルを選ぶ').setInputFiles({
      name: file,
      mimeType: 'application/pdf',
      buffer: Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n'),
    });
    await expect(dialog.getByTestId('attachment-picker-files').getByText(file)).toBeVisible();
    await dialog.getByRole('button', { name: '保存する' }).click();
    await expect(dialog).toBeHidden();
    await expect(card()).toContainText(`e2e編集後-${n}`);
    await expect(card().getByText('面談相手: 事務長')).toBeVisible();
    await expect(card().getByTestId('communication-attachments').getByText(file)).toBeVisible();

    // Someone else saves the same record in another tab while this edit is open.
    await card().getByRole('button', { name: '編集' }).click();
    dialog = page.getByRole('dialog', { name: '活動記録の編集' });
    // The edit saved the edited purpose, not the old one again.
    await expect(dialog.getByLabel('目的')).toHaveValue(`新任医師の紹介-${n}`);
    await expect(dialog.getByLabel('カテゴリ')).toHaveValue('定期訪問');
    await dialog.getByLabel('内容').fill(`e2e私の入力-${n}`);
    await dialog.getByRole('button', { name: `${file}を外す` }).click();
    const other = await context.newPage();
    await other.goto(app('/communications'));
    const otherCard = other.getByTestId('communication-card').filter({ hasText: `e2e編集後-${n}` });
    await otherCard.getByRole('button', { name: '編集' }).click();
    const otherDialog = other.getByRole('dialog', { name: '活動記録の編集' });
    await otherDialog.getByLabel('メモ', { exact: true }).fill('別の人のメモ');
    await otherDialog.getByRole('button', { name: '保存する' }).click();
    await expect(otherDialog).toBeHidden();
    await other.close();

    await dialog.getByRole('button', { name: '保存する' }).click();
    await expect(dialog.getByTestId('communication-conflict')).toContainText('他のユーザーが先に更新しました');
    await expect(dialog.getByLabel('内容')).toHaveValue(`e2e私の入力-${n}`);
    // The memo this edit did not touch now holds the other person's change.
    await expect(dialog.getByLabel('メモ', { exact: true })).toHaveValue('別の人のメモ');
    await screenshot(page, 'communications-edit-conflict');
    // Saved again knowingly, over the latest version: both changes are in.
    await dialog.getByRole('button', { name: '保存する' }).click();
    await expect(dialog).toBeHidden();
    const saved = page.getByTestId('communication-card').filter({ hasText: `e2e私の入力-${n}` });
    await expect(saved).toBeVisible();
    await expect(saved.getByText('メモ: 別の人のメモ')).toBeVisible();
    await expect(saved.getByText(file)).toBeHidden();
  });

  test('edit and delete one’s own comment; an edit over one saved meanwhile in another tab is refused', async ({
    page,
    context,
  }) => {
    const n = Date.now() % 100000;
    const story = `e2eコメント-${n}`;
    await signIn(page, undefined, '/communications');
    await expect(page.getByTestId('communication-card').first()).toBeVisible();
    await page.getByRole('button', { name: '活動を記録' }).click();
    const create = page.getByRole('dialog', { name: '活動の記録' });
    await create.getByLabel('医療機関').fill('病院');
    await page.getByRole('option').first().click();
    await create.getByLabel('内容').fill(story);
    await create.getByLabel('面談相手').click();
    await page.getByRole('option', { name: '院長' }).click();
    await create.getByRole('button', { name: '記録する' }).click();
    await expect(create).toBeHidden();

    const card = page.getByTestId('communication-card').filter({ hasText: story });
    await card.getByLabel('コメント', { exact: true }).fill(`最初のコメント-${n}`);
    await card.getByRole('button', { name: '送信' }).click();
    const comment = card.getByTestId('communication-comment');
    await expect(comment).toContainText(`最初のコメント-${n}`);

    // This tab begins an edit; another tab of the same account saves the comment first.
    await comment.getByRole('button', { name: 'コメントを編集', exact: true }).click();
    const other = await context.newPage();
    await other.goto(app('/communications'));
    const otherComment = other
      .getByTestId('communication-card')
      .filter({ hasText: story })
      .getByTestId('communication-comment');
    await otherComment.getByRole('button', { name: 'コメントを編集', exact: true }).click();
    await otherComment.getByRole('textbox', { name: 'コメントを編集' }).fill(`別のタブで直した-${n}`);
    await otherComment.getByRole('button', { name: '保存' }).click();
    // The edit box holds the typed text too: only its closing says the save was answered (closing the
    // tab before that could cancel the request).
    await expect(otherComment.getByRole('textbox', { name: 'コメントを編集' })).toHaveCount(0);
    await expect(otherComment).toContainText(`別のタブで直した-${n}`);
    await other.close();

    await comment.getByRole('textbox', { name: 'コメントを編集' }).fill(`古い版からの編集-${n}`);
    await comment.getByRole('button', { name: '保存' }).click();
    await expect(
      page.getByText('他の画面で先にこのコメントが更新されました。最新の内容を表示しました。'),
    ).toBeVisible();
    await expect(comment).toContainText(`別のタブで直した-${n}`);

    // Edited again from what it now shows, then deleted after the confirmation.
    await comment.getByRole('button', { name: 'コメントを編集', exact: true }).click();
    await comment.getByRole('textbox', { name: 'コメントを編集' }).fill(`訂正済み-${n}`);
    await comment.getByRole('button', { name: '保存' }).click();
    await expect(comment).toContainText(`訂正済み-${n}`);
    await comment.getByRole('button', { name: 'コメントを削除', exact: true }).click();
    await page.getByTestId('confirm-delete-comment').click();
    await expect(card.getByTestId('communication-comment')).toHaveCount(0);
  });

  test('add, rename, complete and delete a task of a record from its edit form', async ({ page }) => {
    const n = Date.now() % 100000;
    const story = `e2eタスク編集-${n}`;
    await signIn(page, undefined, '/communications');
    await expect(page.getByTestId('communication-card').first()).toBeVisible();
    await page.getByRole('button', { name: '活動を記録' }).click();
    const create = page.getByRole('dialog', { name: '活動の記録' });
    await create.getByLabel('医療機関').fill('病院');
    await page.getByRole('option').first().click();
    await create.getByLabel('内容').fill(story);
    await create.getByLabel('面談相手').click();
    await page.getByRole('option', { name: '院長' }).click();
    await create.getByRole('button', { name: '記録する' }).click();
    await expect(create).toBeHidden();

    const card = page.getByTestId('communication-card').filter({ hasText: story });
    await card.getByRole('button', { name: '編集' }).click();
    const dialog = page.getByRole('dialog', { name: '活動記録の編集' });
    const tasks = dialog.getByTestId('communication-tasks');
    await tasks.getByLabel('新しいタスク').fill(`見積送付-${n}`);
    await tasks.getByLabel('期限').last().fill('2026-12-01');
    await tasks.getByRole('button', { name: 'タスクを追加' }).click();
    const row = tasks.getByTestId('communication-task');
    await expect(row.getByLabel('タスク')).toHaveValue(`見積送付-${n}`);
    // Saved at once: the card behind the dialog already shows it.
    await expect(card.getByText(`タスク: 見積送付-${n}（期限 2026/12/01）`)).toBeVisible();

    await row.getByLabel('タスク').fill(`再見積送付-${n}`);
    await row.getByRole('button', { name: 'タスクを保存' }).click();
    await expect(card.getByText(`タスク: 再見積送付-${n}`)).toBeVisible();
    // Checked once the server has saved it (a controlled checkbox): click, then wait for the state.
    await row.getByRole('checkbox', { name: `再見積送付-${n}を完了にする` }).click();
    await expect(row.getByRole('checkbox', { name: `再見積送付-${n}を完了にする` })).toBeChecked();
    await screenshot(page, 'communications-edit-tasks');
    await row.getByRole('button', { name: `再見積送付-${n}を削除` }).click();
    await expect(row).toHaveCount(0);
    await expect(card.getByText(`再見積送付-${n}`)).toBeHidden();
    // The record itself was not touched: closing the form without saving keeps it as it was.
    await dialog.getByRole('button', { name: 'キャンセル' }).click();
    await expect(card).toContainText(story);
  });
});

test.describe('communication labels order', () => {
  test('a reorder over one saved meanwhile in another tab is refused, said and replaced by the saved order', async ({
    page,
    context,
  }) => {
    await signIn(page, undefined, '/labels?tab=CommunicationLabels');
    const names = (p: typeof page) =>
      p
        .getByTestId('communication-label-table')
        .locator('tr[data-label-name]')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-label-name')));
    await expect(page.getByTestId('communication-label-table')).toBeVisible();
    const original = await names(page);
    expect(original.slice(0, 2)).toEqual(['面談相手', '次回訪問予定']);
    // A second tab of the same owner reads the same order.
    const other = await context.newPage();
    await other.goto(app('/labels?tab=CommunicationLabels'));
    await expect(other.getByTestId('communication-label-table')).toBeVisible();

    await page.getByRole('button', { name: '次回訪問予定を上へ' }).click();
    await expect.poll(() => names(page)).toEqual(['次回訪問予定', '面談相手', ...original.slice(2)]);

    // The second tab still shows the old order: its move is refused, not applied over the first.
    await other.getByRole('button', { name: '面談相手を下へ' }).click();
    await expect(other.getByText('他の人が更新しました。最新の内容を読み込みました。')).toBeVisible();
    await expect.poll(() => names(other)).toEqual(['次回訪問予定', '面談相手', ...original.slice(2)]);

    // With the order it now shows, the move goes through (and puts the demo's order back).
    await other.getByRole('button', { name: '面談相手を上へ' }).click();
    await expect.poll(() => names(other)).toEqual(original);
    await page.reload();
    await expect.poll(() => names(page)).toEqual(original);
  });
});
