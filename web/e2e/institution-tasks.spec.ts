import { expect, test, type Page } from '@playwright/test';
import { app, institutionOption, screenshot, signIn } from './fixtures.ts';

/** An institution of the demo tenant: the one of the newest communication. */
async function someInstitution(page: Page): Promise<{ id: string; name: string }> {
  const card = page.getByTestId('communication-card').first();
  await expect(card).toBeVisible();
  const link = card.locator('a[href*="/crms/"]').first();
  const href = (await link.getAttribute('href'))!;
  return { id: /\/crms\/([^/?#]+)/.exec(href)![1]!, name: (await link.textContent())!.trim() };
}

async function addTask(page: Page, title: string, deadline: string, staff?: string) {
  await page.getByRole('button', { name: 'タスクを追加' }).click();
  const dialog = page.getByRole('dialog', { name: 'タスクを追加' });
  await dialog.getByRole('textbox', { name: 'タイトル' }).fill(title);
  await dialog.getByLabel('期限').fill(deadline);
  // The signed-in user is the staff member unless another is chosen.
  await expect(dialog.getByRole('combobox', { name: '担当者' })).toHaveValue('佐藤 美咲');
  if (staff) {
    await dialog.getByRole('combobox', { name: '担当者' }).click();
    await page.getByRole('option', { name: staff }).click();
  }
  await dialog.getByRole('button', { name: '保存' }).click();
  await expect(dialog).toBeHidden();
}

test("an institution's tasks: add one, complete it; /tasks lists mine or everyone's", async ({ page }) => {
  const n = Date.now() % 100000;
  const mine = `e2e自分の電話-${n}`;
  const colleagues = `e2e同僚の訪問-${n}`;
  await signIn(page, undefined, '/communications');
  const institution = await someInstitution(page);

  // Newest first: earlier runs' tasks (and the demo's) stay behind the ones added here.
  await page.goto(app(`/crms/${institution.id}/tasks?sort_by=created_at`));
  await expect(page.getByTestId('institution-tasks-title')).toHaveText(`${institution.name} のタスク`);
  // On a desktop the frame has no back link: the page has the same button back as the referral page.
  await expect(page.getByRole('link', { name: '医療機関ページへ戻る' })).toHaveAttribute(
    'href',
    `/app/crms/${institution.id}`,
  );

  // Nothing typed: refused on the field before anything is sent.
  await page.getByRole('button', { name: 'タスクを追加' }).click();
  const dialog = page.getByRole('dialog', { name: 'タスクを追加' });
  await dialog.getByRole('button', { name: '保存' }).click();
  await expect(dialog.getByText('タイトルを入力してください')).toBeVisible();
  await dialog.getByRole('button', { name: 'キャンセル' }).click();
  await expect(dialog).toBeHidden();

  await addTask(page, mine, '2025-01-06');
  await addTask(page, colleagues, '2099-03-31', '高橋 健太');
  const mineRow = page.getByTestId('task-row').filter({ hasText: mine });
  const colleaguesRow = page.getByTestId('task-row').filter({ hasText: colleagues });
  await expect(mineRow).toBeVisible();
  await expect(mineRow.getByText('期限切れ')).toBeVisible();
  await expect(mineRow.getByText('担当 佐藤 美咲')).toBeVisible();
  await expect(colleaguesRow.getByText('担当 高橋 健太')).toBeVisible();
  await expect(colleaguesRow.getByText('期限切れ')).toBeHidden();
  await screenshot(page, 'institution-tasks');
  await page.reload();
  await expect(mineRow).toBeVisible();

  // /tasks: mine by default, everyone's under すべて; the choice is kept in the URL.
  await page.goto(app('/tasks?sort_by=created_at'));
  const tasksMine = page.getByTestId('task-row').filter({ hasText: mine });
  const tasksColleagues = page.getByTestId('task-row').filter({ hasText: colleagues });
  await expect(tasksMine).toBeVisible();
  await expect(tasksMine.getByRole('link', { name: institution.name })).toBeVisible();
  await expect(tasksColleagues).toBeHidden();
  await page.getByRole('radiogroup', { name: '担当' }).getByText('すべて').click();
  await expect(page).toHaveURL(/assignee=all.*sort_by=created_at|sort_by=created_at.*assignee=all/);
  await expect(tasksColleagues).toBeVisible();
  await expect(tasksMine).toBeVisible();
  await screenshot(page, 'tasks-all');
  await page.reload();
  await expect(tasksColleagues).toBeVisible();
  // Printed as a to-do list: the rows with their boxes to tick, without the frame and the buttons.
  await page.emulateMedia({ media: 'print' });
  await expect(tasksColleagues).toBeVisible();
  await expect(tasksColleagues.getByRole('checkbox')).toBeVisible();
  await expect(page.locator('.mantine-AppShell-navbar')).toBeHidden();
  await expect(page.getByRole('button', { name: 'タスクを追加' })).toBeHidden();
  await expect(tasksColleagues.getByRole('button', { name: /編集/ })).toBeHidden();
  await screenshot(page, 'tasks-print');
  await page.emulateMedia({ media: 'screen' });
  await page.getByRole('radiogroup', { name: '担当' }).getByText('自分のタスク').click();
  await expect(tasksColleagues).toBeHidden();

  // Completed in one click on the institution's page: it leaves the incomplete list, shows under 完了.
  await page.goto(app(`/crms/${institution.id}/tasks?sort_by=created_at`));
  await mineRow.getByRole('checkbox', { name: `${mine}を完了にする` }).click();
  await expect(mineRow).toBeHidden();
  await page.getByRole('radiogroup', { name: '状況' }).getByText('完了', { exact: true }).click();
  await expect(page).toHaveURL(/status=finished/);
  await expect(mineRow.getByRole('checkbox', { name: `${mine}を完了にする` })).toBeChecked();
  await expect(colleaguesRow).toBeHidden();
  await page.reload();
  await expect(mineRow).toBeVisible();
});

test('/tasks: filter by an institution picked by name, edit a task, delete one, open its communication', async ({
  page,
}) => {
  const n = Date.now() % 100000;
  const kept = `e2e編集する件-${n}`;
  const edited = `e2e編集済みの件-${n}`;
  const removed = `e2e削除する件-${n}`;
  await signIn(page, undefined, '/communications');
  const institution = await someInstitution(page);
  await page.goto(app(`/crms/${institution.id}/tasks?sort_by=created_at`));
  await addTask(page, kept, '2099-05-01');
  await addTask(page, removed, '2099-05-02');

  // Everyone's tasks, newest first, narrowed to the institution typed by name: the URL keeps its id.
  await page.goto(app('/tasks?assignee=all&sort_by=created_at'));
  await expect(page.getByTestId('task-row').first()).toBeVisible();
  const filter = page.getByRole('combobox', { name: '医療機関' });
  await filter.fill(institution.name);
  await page
    .getByRole('option', { name: institutionOption(institution.name) })
    .first()
    .click();
  await expect(page).toHaveURL(new RegExp(`medical_institution_id=${institution.id}`));
  const rows = page.getByTestId('task-row');
  await expect(rows.filter({ hasText: kept })).toBeVisible();
  // Every row listed is the institution's. Polled: the unfiltered list (which also shows the new task
  // first) may still be on screen for a moment after the URL changed.
  const links = rows.getByRole('link', { name: institution.name, exact: true });
  await expect.poll(async () => (await rows.count()) - (await links.count())).toBe(0);
  for (const link of await links.all()) await expect(link).toHaveAttribute('href', `/app/crms/${institution.id}`);
  await page.reload();
  await expect(page.getByRole('combobox', { name: '医療機関' })).toHaveValue(institution.name);
  await expect(rows.filter({ hasText: kept })).toBeVisible();

  // Edited in a dialog: title, deadline, status; saved over its version.
  await rows
    .filter({ hasText: kept })
    .getByRole('button', { name: `${kept}を編集` })
    .click();
  const dialog = page.getByRole('dialog', { name: 'タスクを編集' });
  await expect(dialog.getByRole('combobox', { name: '医療機関' })).toHaveValue(institution.name);
  await dialog.getByRole('textbox', { name: 'タイトル' }).fill(edited);
  await dialog.getByLabel('期限').fill('2000-02-01');
  await dialog.getByRole('button', { name: '保存' }).click();
  await expect(dialog).toBeHidden();
  const editedRow = rows.filter({ hasText: edited });
  await expect(editedRow).toBeVisible();
  await expect(editedRow.getByText('期限切れ')).toBeVisible();
  await expect(rows.filter({ hasText: kept })).toHaveCount(0);
  await screenshot(page, 'tasks-by-institution');

  // Deleted after asking; gone after a reload too.
  await rows
    .filter({ hasText: removed })
    .getByRole('button', { name: `${removed}を削除` })
    .click();
  const confirm = page.getByRole('dialog', { name: 'タスクを削除' });
  await confirm.getByRole('button', { name: '削除する' }).click();
  await expect(confirm).toBeHidden();
  await expect(rows.filter({ hasText: removed })).toHaveCount(0);
  await page.reload();
  await expect(editedRow).toBeVisible();
  await expect(rows.filter({ hasText: removed })).toHaveCount(0);

  // The filter dropped by keyboard: the × is in the tab order.
  await page.getByRole('button', { name: '医療機関の選択を外す' }).focus();
  await page.keyboard.press('Enter');
  await expect(page).not.toHaveURL(/medical_institution_id=/);

  // A demo task made with a visit links to that record, opened on its day so it is on the page.
  await page.goto(app('/tasks?assignee=all&status=all'));
  const origin = page.getByRole('link', { name: '元の活動記録' }).first();
  await expect(origin).toBeVisible();
  const anchor = /#(communication-[^?]+)$/.exec((await origin.getAttribute('href'))!)![1]!;
  await origin.click();
  await expect(page).toHaveURL(/\/crms\/[^/]+\/communications\?.*from=\d{4}-\d{2}-\d{2}.*#communication-/);
  await expect(page.locator(`[id="${anchor}"]`)).toBeInViewport();
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });

  test("an institution's tasks page says it is not made for phones, with the back link", async ({ page }) => {
    await signIn(page, undefined, '/communications');
    const institution = await someInstitution(page);
    await page.goto(app(`/crms/${institution.id}/tasks`));
    await expect(page.getByText('このページはスマートフォンでの閲覧に対応していません')).toBeVisible();
    await expect(page.getByTestId('back-link')).toHaveAttribute('href', `/app/crms/${institution.id}`);
  });
});

test("a link to a record's place on a timeline (the CRM page's recent communications) scrolls to it", async ({
  page,
}) => {
  await signIn(page, undefined, '/communications');
  const far = page.getByTestId('communication-card').nth(14);
  await expect(far).toBeVisible();
  await expect(far).not.toBeInViewport();
  const anchor = (await far.getAttribute('id'))!;
  expect(anchor).toMatch(/^communication-/);
  await page.goto(app(`/communications?page=1&sort=desc#${anchor}`));
  await expect(page.locator(`[id="${anchor}"]`)).toBeInViewport();
});
