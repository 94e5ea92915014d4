import { readFile } from 'node:fs/promises';
import { expect, test, type Page } from '@playwright/test';
import { institutionOption, screenshot, signIn } from './fixtures.ts';

/** The records of a CSV (quoted fields may hold commas, quotes and line breaks), header excluded. */
function csvRecords(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted && ch === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (ch === '"') quoted = !quoted;
    else if (quoted || (ch !== ',' && ch !== '\n')) field += ch;
    else {
      row.push(field.replace(/\r$/, ''));
      field = '';
      if (ch === '\n') {
        rows.push(row);
        row = [];
      }
    }
  }
  if (field || row.length) rows.push([...row, field]);
  return rows;
}

const total = async (page: Page) =>
  Number((await page.getByTestId('communication-total').textContent())!.replace('件', ''));

test('communication search: institution and label filters in the URL, after a reload and in the CSV', async ({
  page,
}) => {
  const n = Date.now() % 100000;
  const story = `e2e検索条件-${n}`;
  // A far day no demo record plans its next visit on: the date range finds this record alone.
  const nextVisit = `2031-0${(n % 9) + 1}-15`;
  await signIn(page, undefined, '/communications');
  await expect(page.getByTestId('communication-card').first()).toBeVisible();

  // A visit with a label value to find.
  await page.getByRole('button', { name: '活動を記録' }).click();
  const dialog = page.getByRole('dialog', { name: '活動の記録' });
  await dialog.getByLabel('医療機関').fill('病院');
  await page.getByRole('option').first().click();
  const institutionName = (await dialog.getByTestId('picked-institution').textContent())!;
  await dialog.getByLabel('内容').fill(story);
  await dialog.getByLabel('面談相手').click();
  await page.getByRole('option', { name: '院長' }).click();
  await dialog.getByLabel('次回訪問予定').fill(nextVisit);
  await dialog.getByRole('button', { name: '記録する' }).click();
  await expect(dialog).toBeHidden();
  const card = page.getByTestId('communication-card').filter({ hasText: story });
  await expect(card).toBeVisible();
  const everything = await total(page);

  // 訪問 only, then the institution by its typed name and the label's choice.
  // The new record's card took the focus down the page: back to the filters, above the sticky header.
  await page.evaluate(() => window.scrollTo(0, 0));
  // Not searchable: its wrapper, not the hidden field, takes the click.
  await page.getByRole('combobox', { name: '種別', exact: true }).click({ force: true });
  await page.getByRole('option', { name: '訪問', exact: true }).click();
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: '詳細条件' }).click();
  const filters = page.getByTestId('communication-filters');
  await filters.getByRole('combobox', { name: '医療機関', exact: true }).fill(institutionName);
  await page
    .getByRole('option', { name: institutionOption(institutionName) })
    .first()
    .click();
  await page.keyboard.press('Escape');
  await filters.getByRole('combobox', { name: 'ラベルの条件を追加', exact: true }).click();
  await page.getByRole('option', { name: '面談相手', exact: true }).click();
  await filters.getByRole('combobox', { name: '面談相手（いずれか）' }).click();
  await page.getByRole('option', { name: '院長', exact: true }).click();
  await page.keyboard.press('Escape');

  await expect(page).toHaveURL(/institution_ids=/);
  await expect(page).toHaveURL(/labels=/);
  await expect(card).toBeVisible();
  await expect.poll(() => total(page)).toBeLessThan(everything);
  const filtered = await total(page);
  expect(filtered).toBeGreaterThanOrEqual(1);
  // Every record shown is of the picked institution.
  const cards = page.getByTestId('communication-card');
  for (let i = 0; i < (await cards.count()); i++) await expect(cards.nth(i)).toContainText(institutionName);
  const url = new URL(page.url());
  const labels = JSON.parse(url.searchParams.get('labels')!) as { label_id: string; selection_ids: string[] }[];
  expect(labels).toHaveLength(1);
  expect(labels[0]!.selection_ids).toHaveLength(1);
  expect(JSON.parse(url.searchParams.get('institution_ids')!)).toHaveLength(1);
  await screenshot(page, 'communication-search-filters');

  // Printed (the records of a search for a meeting): the records whole, the filters saying what is
  // listed, and none of the frame, buttons or comment boxes.
  await page.emulateMedia({ media: 'print' });
  await expect(card.getByText(story)).toBeVisible();
  await expect(page.getByTestId('communication-filters').getByText(institutionName)).toBeVisible();
  await expect(page.locator('.mantine-AppShell-navbar')).toBeHidden();
  await expect(page.getByRole('button', { name: '活動を記録' })).toBeHidden();
  await expect(card.getByRole('button', { name: '編集' })).toBeHidden();
  await expect(card.getByRole('textbox', { name: 'コメント' })).toBeHidden();
  await screenshot(page, 'communication-search-print');
  await page.emulateMedia({ media: 'screen' });

  // A reload (or the link shared) gives the same search, its filters shown as they were.
  await page.reload();
  await expect(card).toBeVisible();
  expect(await total(page)).toBe(filtered);
  await expect(page.getByTestId('communication-filters')).toBeVisible();
  await expect(page.getByTestId('communication-filters').getByText(institutionName)).toBeVisible();
  await expect(page.getByTestId('label-condition').filter({ hasText: '面談相手' })).toContainText('院長');

  // The CSV export sends the same conditions: as many rows as the search's total.
  const exported = async () => {
    await page.getByRole('button', { name: 'CSV出力' }).click();
    const [request, download] = await Promise.all([
      page.waitForRequest((r) => r.url().includes('/api/communications/search_results/export')),
      page.waitForEvent('download'),
      page.getByRole('menuitem', { name: 'UTF-8（BOM付き）' }).click(),
    ]);
    const body = request.postDataJSON() as Record<string, unknown>;
    const [header, ...rows] = csvRecords((await readFile((await download.path())!, 'utf8')).replace(/^\ufeff/, ''));
    // The columns an edited export carries back through the update import, every field of the form.
    expect(header).toEqual(
      expect.arrayContaining([
        'ID',
        '医療機関コード',
        'カテゴリ',
        '目的',
        'イベント名',
        '先方担当者',
        '同行者',
        '内容',
      ]),
    );
    const storyAt = header!.indexOf('内容');
    return { body, rows, stories: rows.map((r) => r[storyAt]) };
  };
  const csv = await exported();
  expect(csv.body).toMatchObject({
    communication_types: ['visit'],
    medical_institution_ids: [expect.any(String)],
    label_filters: [{ selection_ids: [expect.any(String)] }],
  });
  expect(csv.rows).toHaveLength(filtered);
  expect(csv.stories).toContain(story);

  // A date range on the other label narrows to this record alone, in the list and in the CSV.
  await filters.getByRole('combobox', { name: 'ラベルの条件を追加', exact: true }).click();
  await page.getByRole('option', { name: '次回訪問予定', exact: true }).click();
  await filters.getByLabel('次回訪問予定（開始）').fill(nextVisit.replace(/15$/, '01'));
  await filters.getByLabel('次回訪問予定（終了）').fill(nextVisit.replace(/15$/, '28'));
  await expect.poll(() => total(page)).toBe(1);
  await expect(card).toBeVisible();
  await expect(page).toHaveURL(/date_from/);
  const narrowed = await exported();
  expect(narrowed.body.label_filters).toHaveLength(2);
  expect(narrowed.stories).toEqual([story]);

  // 条件をクリア: every filter off, every record back.
  await page.getByRole('button', { name: '条件をクリア' }).click();
  await expect.poll(() => total(page)).toBeGreaterThanOrEqual(everything);
  await expect(page).not.toHaveURL(/labels=/);
});

test('a page past the last (an old link) says so and leads back to page 1', async ({ page }) => {
  await signIn(page, undefined, '/communications?page=9999');
  const pastEnd = page.getByTestId('communication-page-past-end');
  await expect(pastEnd).toContainText('このページには記録がありません');
  await pastEnd.getByRole('button', { name: '1ページ目へ' }).click();
  await expect(pastEnd).toBeHidden();
  await expect(page.getByTestId('communication-card').first()).toBeVisible();
});
