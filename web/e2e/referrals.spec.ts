import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { app, institutionOption, screenshot, signIn } from './fixtures.ts';

// The demo master is generated with a fixed seed, so this institution always exists (institutions.spec.ts).
const institution = { name: '葵医療センター', halfWidthKana: 'ｱｵｲｲﾘｮｳｾﾝﾀｰ' };
const suffix = String(Date.now() % 100000);
const patient = `E2E${suffix}`;
// A patient of the FF1 below: its データ識別番号 is the same number zero-padded to 10 digits.
const operatedPatient = `7${suffix.padStart(5, '0')}`;

/**
 * The demo hospital's 施設コード (9 digits): the tenant refuses DPC rows of any other facility. The demo
 * seed wrote its FF1 files under the data dir, named after it.
 */
function demoFacilityCode(): string {
  const dataDir = process.env.E2E_DATA_DIR;
  if (!dataDir) throw new Error('E2E_DATA_DIR is not set: run through playwright.config.ts');
  const names = fs.readdirSync(path.join(dataDir, 'demo', 'referrals'));
  const code = names.map((n) => /^FF1_(\d{9})_/.exec(n)?.[1]).find((c) => c !== undefined);
  if (!code) throw new Error(`no demo FF1 file in ${dataDir}/demo/referrals: ${names.join(', ')}`);
  return code;
}

/** 様式1 in the long layout (17 tab-separated columns) for one stay after the referral: admitted and operated. */
function ff1File(facilityCode: string): string {
  const dataId = operatedPatient.padStart(10, '0');
  const admission = '20300405';
  const row = (code: string, version: string, seq: number, payloads: string[]) =>
    [
      facilityCode,
      dataId,
      admission,
      '0',
      '0',
      code,
      version,
      String(seq),
      ...payloads,
      ...Array<string>(9 - payloads.length).fill(''),
    ].join('\t');
  return [
    row('A000010', '20180401', 0, ['19600101', '1', '4200853']),
    row('A000020', '20220401', 0, [admission, '1', '1', '0', '0', '0', '0', '0', '0']),
    row('A000030', '20180401', 0, ['20300415', '1', '1', '0', '0']),
    // 510: 消化器外科 (様式1 診療科コード).
    row('A000040', '20180401', 0, ['', '510', '0']),
    row('A006010', '20180401', 0, ['', 'K359', '', '', '', '', '', '', '急性虫垂炎']),
    row('A007010', '20220401', 1, ['20300406', 'K718-21', '', '1', '0', '1', '', '', '腹腔鏡下虫垂切除術']),
  ].join('\r\n');
}

/** Today's 年度 (from April) and month, Japan time. */
function fiscalToday(now = new Date()): { fy: number; month: number } {
  const tokyo = new Date(now.getTime() + 9 * 3_600_000);
  const month = tokyo.getUTCMonth() + 1;
  return { fy: month >= 4 ? tokyo.getUTCFullYear() : tokyo.getUTCFullYear() - 1, month };
}

type Totals = { referrals: number; admitted: number; operated: number; reverse: number };

/**
 * This 年度 from April to this month and the same months of the last 年度, summed from the referral page's
 * monthly table (the chart endpoint's own months, as the user reads them): what the CRM page must show.
 */
async function figuresFromMonthlyTable(page: Page): Promise<{ now: Totals; before: Totals; beforeThisMonth: Totals }> {
  const table = page.getByTestId('referral-monthly-table');
  const headers = (await table.locator('thead th').allInnerTexts()).map((t) => t.trim());
  const rows = await table
    .locator('tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
  const { fy, month } = fiscalToday();
  const fiscalIndex = (m: number) => (m + 8) % 12;
  const zero = (): Totals => ({ referrals: 0, admitted: 0, operated: 0, reverse: 0 });
  const now = zero();
  const before = zero();
  const beforeThisMonth = zero();
  // Counts are written 1,234; a month still to come is 「—」.
  const column = (name: string, row: string[]) => Number((row[headers.indexOf(name)] ?? '0').replaceAll(',', '')) || 0;
  for (const row of rows) {
    // A month's row reads 2026年4月 (the month under way with （途中） after it); a 年度's total row is skipped.
    const match = /^(\d{4})年(\d{1,2})月/.exec(row[0]!.trim());
    if (!match) continue;
    const [, y, m] = match.map(Number) as [number, number, number];
    const monthFy = m >= 4 ? y : y - 1;
    if (fiscalIndex(m) > fiscalIndex(month)) continue;
    // Last year's month of today is compared up to today's date only: kept apart, as a bound.
    const totals = monthFy === fy ? now : monthFy === fy - 1 ? (m === month ? beforeThisMonth : before) : null;
    if (!totals) continue;
    totals.referrals += column('紹介', row);
    totals.admitted += column('入院', row);
    totals.operated += column('手術', row);
    totals.reverse += column('逆紹介', row);
  }
  return { now, before, beforeThisMonth };
}

const count = (n: number) => n.toLocaleString('ja-JP');
const rate = (part: number, whole: number) =>
  whole > 0 ? `${(Math.round((part / whole) * 1000) / 10).toFixed(1)}%` : '—';

test('referral list in the hospital’s own columns: mapped, imported with progress and counts, shown on the institution’s referral page', async ({
  page,
}) => {
  // The demo's own uploads (three years of lists, FF1, D and EF) run first in the tenant's import queue.
  test.setTimeout(240_000);
  await signIn(page, undefined, '/data_uploads');
  await expect(page.getByRole('heading', { name: 'データアップロード' })).toBeVisible();
  // Whatever ran before (the demo's uploads, an earlier run of this spec) has ended: nothing queued or running.
  await expect(page.locator('tr[data-upload-status="completed"]').nth(4)).toBeVisible({ timeout: 150_000 });
  await expect(
    page.locator('tr[data-upload-status]:not([data-upload-status="completed"]):not([data-upload-status="failed"])'),
  ).toHaveCount(0, { timeout: 150_000 });

  // The hospital's own export: its own column names, 和暦 dates, the institution by name only, one bad row.
  const csv = [
    '受付年月日,カルテNo,紹介元病院名,依頼内容,受診科',
    `R12.4.1,${patient},${institution.name},精査加療のお願い,内科`,
    `R12.4.2,${patient}-2,${institution.name},経過観察,内科`,
    `日付なし,${patient}-3,${institution.name},,内科`,
    // An institution the master does not know: kept as unmatched, then matched by hand below.
    `R12.4.3,${patient}-4,未登録医院${suffix},紹介状持参,内科`,
    // The patient of the FF1 uploaded below.
    `R12.4.2,${operatedPatient},${institution.name},手術目的,内科`,
    // No institution at all: set aside (照合しない) below.
    `R12.4.4,${patient}-5,不明${suffix},,内科`,
  ].join('\r\n');
  const card = page.getByTestId('upload-card-referral');
  await card.locator('input[type=file]').setInputFiles({
    name: `紹介一覧-${suffix}.csv`,
    mimeType: 'text/csv',
    buffer: Buffer.from(csv),
  });
  await card.getByRole('button', { name: '列を確認してアップロード' }).click();

  const step = page.getByTestId('mapping-step');
  await expect(step).toBeVisible();
  const choose = async (column: string, fileColumn: string) => {
    // A run before this one saved the mapping, which pre-fills the step: choosing again keeps the value.
    const input = step.getByLabel(column, { exact: true });
    await input.click();
    await page.getByRole('option', { name: fileColumn, exact: true }).click();
    await expect(input).toHaveValue(fileColumn);
  };
  await choose('紹介日 *', '受付年月日');
  await choose('患者ID *', 'カルテNo');
  await choose('紹介元医療機関名', '紹介元病院名');
  await choose('紹介目的', '依頼内容');
  await expect(page.getByTestId('mapping-preview')).toContainText(patient);
  await screenshot(page, 'referrals-mapping');
  await step.getByRole('button', { name: '対応付けを保存して取り込む' }).click();

  const row = page.locator(`tr[data-upload-filename="紹介一覧-${suffix}.csv"]`);
  await expect(row).toBeVisible();
  await expect(row).toHaveAttribute('data-upload-status', 'completed', { timeout: 60_000 });
  // 5 rows in, 1 refused; 5 new referrals.
  await expect(row.locator('td').nth(4)).toHaveText('5');
  await expect(row.locator('td').nth(5)).toHaveText('1');
  await expect(row.locator('td').nth(6)).toHaveText('5');
  await row.getByRole('button', { name: `「紹介一覧-${suffix}.csv」の詳細` }).click();
  await expect(page.getByTestId('upload-details')).toContainText('4行目');
  await screenshot(page, 'referrals-upload-history');

  // The unmatched institution, matched by hand to the institution: its referral moves there.
  const match = page.getByRole('button', { name: `未登録医院${suffix}を照合`, exact: true });
  await match.click();
  await page.getByPlaceholder('名称・カナ・住所で検索').fill(institution.name);
  await page.getByRole('option', { name: institutionOption(institution.name) }).click();
  await page.getByTestId('match-institution-save').click();
  await expect(match).toHaveCount(0);
  // 「不明」 is no institution: set aside, it leaves the list and waits under 照合しないもの.
  const setAside = page.getByRole('button', { name: `不明${suffix}を照合しない` });
  await setAside.click();
  await expect(setAside).toHaveCount(0);
  await page.getByText('照合しないもの', { exact: true }).click();
  await expect(page.getByRole('button', { name: `不明${suffix}を照合待ちに戻す` })).toBeVisible();
  await page.getByText('照合待ち', { exact: true }).click();

  // An FF1 for the same patient, uploaded after the list: its stay joins the referral. The answer is held
  // back until the transfer's bar has been seen (a file this small is sent at once).
  const ff1Name = `FF1-${suffix}.txt`;
  const ff1Card = page.getByTestId('upload-card-ff1_file');
  await expect(ff1Card.getByTestId('upload-limit-ff1_file')).toHaveText('1ファイル 2 GB まで');
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/api/data_uploads', async (route) => {
    if (route.request().method() !== 'POST') return route.fallback();
    await released;
    await route.continue();
  });
  await ff1Card.locator('input[type=file]').setInputFiles({
    name: ff1Name,
    mimeType: 'text/plain',
    buffer: Buffer.from(ff1File(demoFacilityCode())),
  });
  await ff1Card.getByRole('button', { name: 'アップロード' }).click();
  const bar = ff1Card.getByTestId('upload-progress-ff1_file');
  await expect(bar).toBeVisible();
  // Held before it reaches the network, nothing is sent yet: the bar's track shows at 0 %.
  await expect(bar.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '0');
  await expect(bar).toContainText(/アップロード中 \d+\.\d \/ 0\.0 MB/);
  await expect(bar).toContainText('0.0%');
  await screenshot(page, 'referrals-upload-progress');
  release();
  await expect(bar).toHaveCount(0, { timeout: 30_000 });
  await page.unroute('**/api/data_uploads');
  const ff1Row = page.locator(`tr[data-upload-filename="${ff1Name}"]`);
  await expect(ff1Row).toHaveAttribute('data-upload-status', 'completed', { timeout: 60_000 });

  await page.goto(app('/medical_institutions_search'));
  await page.getByTestId('filter-keyword').fill(institution.halfWidthKana);
  await page.getByTestId('filter-apply').click();
  await page.locator(`tr[data-institution-name="${institution.name}"]`).getByTestId('institution-link').click();
  await expect(page.getByTestId('crm-name')).toHaveText(institution.name);
  const id = page.url().match(/crms\/([0-9a-f-]{36})/)![1]!;

  await page.getByTestId('open-referrals').click();
  await expect(page).toHaveURL(new RegExp(`/crms/${id}/referrals`));
  await expect(page.getByRole('heading', { name: `${institution.name} の紹介実績` })).toBeVisible();
  await expect(page.getByTestId('referral-chart')).toBeVisible();
  const referral = page.getByTestId('referral-row').filter({ hasText: patient }).first();
  await expect(referral).toContainText('2030');
  await expect(page.getByTestId('referral-list')).toContainText(`${patient}-2`);
  await expect(page.getByTestId('referral-list')).toContainText(`${patient}-4`);
  // The FF1's stay under its referral: the department by name, the diagnosis and the operation.
  const operated = page.getByTestId('referral-row').filter({ hasText: operatedPatient });
  await expect(operated.getByTestId('referral-admission')).toHaveText(
    '2030/04/05入院〜2030/04/15 消化器外科（510） 急性虫垂炎（K359） 手術 K718-21 腹腔鏡下虫垂切除術（2030/04/06）',
  );
  // Print: the controls and the hand-entry form stay off the paper.
  await page.emulateMedia({ media: 'print' });
  await expect(page.getByTestId('print')).toBeHidden();
  await expect(page.getByTestId('referrals-export')).toBeHidden();
  await expect(page.getByTestId('referral-list')).toBeVisible();
  await page.emulateMedia({ media: 'screen' });
  const download = page.waitForEvent('download');
  await page.getByTestId('referrals-export').click();
  await page.getByRole('menuitem', { name: 'UTF-8（BOM付き）' }).click();
  const exported = fs.readFileSync(await (await download).path(), 'utf8');
  expect(exported).toContain(`${operatedPatient},`);
  expect(exported).toContain('消化器外科（510）');
  await screenshot(page, 'referrals-institution');
  const { now, before: beforeWholeMonths, beforeThisMonth } = await figuresFromMonthlyTable(page);
  // The demo's lists give this institution referrals in both 年度 (the spec's own rows are dated 2030,
  // after today, and must not count anywhere).
  expect(now.referrals + beforeWholeMonths.referrals + beforeThisMonth.referrals).toBeGreaterThan(0);
  // The 年度's total row under its months: April to this month, the months still to come adding nothing.
  await expect(
    page.getByTestId('referral-monthly-table').locator(`tr[data-fiscal-total="${fiscalToday().fy}"] td`),
  ).toHaveText([
    new RegExp(`^${fiscalToday().fy}年度 計`),
    count(now.referrals),
    count(now.admitted),
    count(now.operated),
    count(now.reverse),
  ]);
  await page.getByRole('link', { name: '医療機関ページへ戻る' }).click();
  await expect(page.getByTestId('crm-name')).toHaveText(institution.name);

  // The CRM page: this 年度 to date against the last to the same date, the rates and the trend.
  const { fy, month } = fiscalToday();
  const months = month === 4 ? '4月' : `4月〜${month}月`;
  const figures = page.getByTestId('institution-referral-figures');
  await expect(figures.getByRole('heading', { name: `紹介実績 ${fy}年度（${months}）` })).toBeVisible();
  await expect(figures).toContainText('と、同じ日付までの件数で比較しています。');
  await expect(page.getByTestId('kpi-referrals-value')).toHaveText(count(now.referrals));
  // The last 年度 to the same date: its whole months before this month, and some of this month's.
  const shownBefore = async (key: string) =>
    Number(/前年同期 ([\d,]+)件/.exec(await page.getByTestId(`kpi-${key}`).innerText())![1]!.replaceAll(',', ''));
  const before: Totals = {
    referrals: await shownBefore('referrals'),
    admitted: await shownBefore('admissions'),
    operated: await shownBefore('operations'),
    reverse: await shownBefore('reverse_referrals'),
  };
  for (const key of ['referrals', 'admitted', 'operated', 'reverse'] as const) {
    expect(before[key]).toBeGreaterThanOrEqual(beforeWholeMonths[key]);
    expect(before[key]).toBeLessThanOrEqual(beforeWholeMonths[key] + beforeThisMonth[key]);
  }
  await expect(page.getByTestId('kpi-admissions-value')).toHaveText(count(now.admitted));
  await expect(page.getByTestId('kpi-admissions')).toContainText(`入院率 ${rate(now.admitted, now.referrals)}`);
  await expect(page.getByTestId('kpi-operations-value')).toHaveText(count(now.operated));
  await expect(page.getByTestId('kpi-operations')).toContainText(`手術率 ${rate(now.operated, now.referrals)}`);
  await expect(page.getByTestId('kpi-reverse_referrals-value')).toHaveText(count(now.reverse));
  const diff = now.referrals - before.referrals;
  if (before.referrals > 0)
    await expect(page.getByTestId('kpi-referrals')).toContainText(`${diff > 0 ? '+' : ''}${count(diff)}（`);
  await expect(figures.getByRole('img', { name: `月別の紹介件数（${fy}年度と${fy - 1}年度）` })).toBeVisible();
  await screenshot(page, 'referrals-crm-figures');

  // The partner chart: the same figures, compact, and the sheet still one A4 page when printed.
  await page.getByTestId('open-karte').click();
  const sheet = page.getByTestId('partner-chart');
  await expect(sheet.getByTestId('figure-referrals')).toContainText(
    `紹介${count(now.referrals)}件${count(before.referrals)}件`,
  );
  await expect(sheet.getByTestId('figure-admissions')).toContainText(
    `入院${count(now.admitted)}件（${rate(now.admitted, now.referrals)}）${count(before.admitted)}件（${rate(before.admitted, before.referrals)}）`,
  );
  await expect(sheet.getByTestId('figure-reverse_referrals')).toContainText(
    `逆紹介${count(now.reverse)}件${count(before.reverse)}件`,
  );
  // The screenshot at the printed width (A4 less the 12 mm margins); the PDF is the real page count.
  const viewport = page.viewportSize()!;
  await page.emulateMedia({ media: 'print' });
  await page.setViewportSize({ width: 703, height: 1032 });
  await screenshot(page, 'referrals-karte-print');
  const pdf = (await page.pdf({ format: 'A4', preferCSSPageSize: true })).toString('latin1');
  expect(pdf.match(/\/Type\s*\/Page\b/g)).toHaveLength(1);
  await page.setViewportSize(viewport);
  await page.emulateMedia({ media: 'screen' });
  await sheet.getByRole('link', { name: '医療機関ページに戻る' }).click();
  await page.getByTestId('open-referrals').click();
  await expect(page).toHaveURL(new RegExp(`/crms/${id}/referrals`));
});

test('an upload withdrawn from the history: its record leaves the history and its referral the institution’s page', async ({
  page,
}) => {
  // The demo's own uploads run first in the tenant's import queue.
  test.setTimeout(240_000);
  const filename = `紹介一覧-取消-${suffix}.csv`;
  const withdrawnPatient = `W${suffix}`;
  await signIn(page, undefined, '/data_uploads');
  // The canonical column names: the mapping step reads them as they are, whatever mapping was saved before.
  const csv = ['紹介日,患者ID,紹介元医療機関名', `2030/05/01,${withdrawnPatient},${institution.name}`].join('\r\n');
  const card = page.getByTestId('upload-card-referral');
  await card
    .locator('input[type=file]')
    .setInputFiles({ name: filename, mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await card.getByRole('button', { name: '列を確認してアップロード' }).click();
  await expect(page.getByTestId('mapping-preview')).toContainText(withdrawnPatient);
  await page.getByTestId('mapping-step').getByRole('button', { name: '対応付けを保存して取り込む' }).click();
  const row = page.locator(`tr[data-upload-filename="${filename}"]`);
  await expect(row).toHaveAttribute('data-upload-status', 'completed', { timeout: 150_000 });

  await page.goto(app('/medical_institutions_search'));
  await page.getByTestId('filter-keyword').fill(institution.halfWidthKana);
  await page.getByTestId('filter-apply').click();
  await page.locator(`tr[data-institution-name="${institution.name}"]`).getByTestId('institution-link').click();
  await page.getByTestId('open-referrals').click();
  await expect(page).toHaveURL(/\/crms\/[0-9a-f-]{36}\/referrals/);
  const referralsPage = page.url();
  const withdrawnReferral = page.getByTestId('referral-row').filter({ hasText: withdrawnPatient });
  await expect(withdrawnReferral).toHaveCount(1);

  await page.goto(app('/data_uploads'));
  await row.getByRole('button', { name: `「${filename}」の取り込みを取り消す` }).click();
  const dialog = page.getByRole('dialog', { name: '取り込みの取り消し' });
  await expect(dialog).toContainText('紹介・逆紹介・入院の集計から削除します');
  await expect(dialog).toContainText('元に戻せません');
  await dialog.getByRole('button', { name: '取り消す' }).click();
  await expect(
    page.getByText(
      `「${filename}」の取り消しを受け付けました。取り消しが終わるまで（大きなファイルでは数分）、集計にはこのファイルの行が含まれます。`,
    ),
  ).toBeVisible();
  await expect(dialog).toHaveCount(0);
  // Listed as being withdrawn (the list waits for the withdrawal's position), with nothing more to ask.
  await expect(row.getByTestId('upload-withdrawing')).toHaveText('取り消し中');
  await expect(row.getByTestId('withdraw-upload')).toHaveCount(0);
  // The history polls meanwhile: the record leaves it, with no reload, once the rows are all taken back.
  await expect(row).toHaveCount(0, { timeout: 60_000 });

  // Done: the institution's page, read again, shows its other referrals only.
  await expect(async () => {
    await page.goto(referralsPage);
    await expect(page.getByTestId('referral-row').first()).toBeVisible();
    await expect(withdrawnReferral).toHaveCount(0, { timeout: 1_000 });
  }).toPass({ timeout: 60_000 });
});

test('data sync status: the last upload of each type and every read model, from the side menu', async ({ page }) => {
  await signIn(page, undefined, '/tags');
  await page.getByRole('link', { name: 'データ連携状況' }).click();
  await expect(page.getByRole('heading', { name: 'データ連携状況' })).toBeVisible();
  // The demo's referral list was uploaded on first start and has been imported.
  const referral = page.locator('[data-import-type="referral"]');
  await expect(referral).toContainText('完了', { timeout: 150_000 });
  await expect(page.getByTestId('master-sync')).toContainText('件');
  await expect(page.locator('[data-projection="referrals"]')).toBeVisible();
  await expect(page.locator('[data-projection][data-status="stopped"]')).toHaveCount(0);
  await screenshot(page, 'data-sync-statuses');
});
