// `pnpm --filter @renkei/web bench:analysis` (not a test): the time /data_analysis takes in headless Chromium to
// show every panel (no panel or KPI card busy, the KPI figure and the trend drawn) with the demo tenant's data,
// against a same-run baseline: the time to show /app/tags, the lightest page. Appends to docs/benchmarks.md.
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { chromiumArgs } from '../playwright.config.ts';
import { demoOwner } from '../e2e/fixtures.ts';
import { repoRoot, startSystem } from '../e2e/system.ts';

const runs = 5;
const goalMs = 1500;

async function signIn(page: Page, baseURL: string) {
  await page.goto(`${baseURL}/app/data_uploads`);
  await page.waitForURL(/\/oidc\/interaction\//);
  await page.locator('input[name=login]').fill(demoOwner.email);
  await page.locator('input[name=password]').fill(demoOwner.password);
  await page.locator('button[type=submit]').click();
  await page.waitForURL(/\/app\/data_uploads/);
  // The demo's referral lists are imported after start: the figures need them.
  await page.locator('tr[data-upload-status="completed"]').first().waitFor({ timeout: 300_000 });
  await page.waitForFunction(
    () =>
      document.querySelectorAll('tr[data-upload-status="processing"], tr[data-upload-status="waiting"]').length === 0,
    undefined,
    {
      timeout: 300_000,
      polling: 1000,
    },
  );
}

/** From navigation to every panel shown: nothing busy, the KPI figure and the trend chart drawn. */
async function showAll(page: Page, baseURL: string): Promise<number> {
  const start = performance.now();
  await page.goto(`${baseURL}/app/data_analysis`, { waitUntil: 'commit' });
  await page
    .getByTestId('kpi-referrals-value')
    .filter({ hasText: /^[\d,]+$/ })
    .waitFor();
  await page.getByTestId('trend-panel').locator('[data-chart]').first().waitFor();
  await page.waitForFunction(() => document.querySelectorAll('[aria-busy="true"]').length === 0, undefined, {
    polling: 'raf',
    timeout: 60_000,
  });
  return performance.now() - start;
}

async function showTags(page: Page, baseURL: string): Promise<number> {
  const start = performance.now();
  await page.goto(`${baseURL}/app/tags`, { waitUntil: 'commit' });
  await page.getByRole('heading', { name: 'タグ管理' }).waitFor();
  await page.waitForFunction(() => document.querySelectorAll('[aria-busy="true"]').length === 0, undefined, {
    polling: 'raf',
  });
  return performance.now() - start;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const max = (xs: number[]) => Math.max(...xs);

const system = await startSystem();
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: chromiumArgs,
});
try {
  const context = await browser.newContext({
    ignoreHTTPSErrors: true,
    locale: 'ja-JP',
    viewport: { width: 1440, height: 900 },
  });
  const page = await context.newPage();
  await signIn(page, system.baseURL);
  // Warm-up: compiled routes, the chart chunk in the cache, plans on the server.
  await showAll(page, system.baseURL);
  await showTags(page, system.baseURL);
  const analysis: number[] = [];
  const tags: number[] = [];
  // Alternating, so both see the same machine.
  for (let i = 0; i < runs; i++) {
    analysis.push(await showAll(page, system.baseURL));
    tags.push(await showTags(page, system.baseURL));
  }
  // BENCH_TRACE=1: one more load of the page, printing each API call's start and end relative to the
  // navigation, to see which calls the time goes to (not recorded).
  if (process.env.BENCH_TRACE) {
    const calls: string[] = [];
    const t0 = performance.now();
    const onFinished = (request: import('playwright-core').Request) => {
      const t = request.timing();
      const started = t.startTime - (performance.timeOrigin + t0);
      calls.push(
        `${Math.round(started)}→${Math.round(started + t.responseEnd)} ms ${request.method()} ${new URL(request.url()).pathname}`,
      );
    };
    page.on('requestfinished', onFinished);
    const total = await showAll(page, system.baseURL);
    page.off('requestfinished', onFinished);
    calls.push(`${Math.round(total)} all panels shown`);
    console.log(calls.sort((a, b) => parseInt(a) - parseInt(b)).join('\n'));
  }
  const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
  const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const m = median(analysis);
  const section = [
    '<!-- bench:web-data-analysis -->',
    '## Web: /data_analysis shows every panel (`pnpm --filter @renkei/web bench:analysis`)',
    '',
    `Measured ${date} UTC on this machine (2 shared cores, load average ${load}), headless Debian Chromium, localhost https, signed-in demo owner, the demo tenant's data (its three 年度 of referral lists, imported at start), ${runs} loads of each page alternating after one warm-up, in one tab (the app's JavaScript cached, as on a second visit). Time from navigation to: the KPI figure and the trend chart shown and no panel busy (\`aria-busy\`), i.e. every call of the page answered and drawn. Baseline: the same measure for /app/tags in the same run.`,
    '',
    '| Metric | Result | Baseline | Ratio | Goal |',
    '|---|---|---|---|---|',
    `| /data_analysis, every panel shown (median) | ${Math.round(m)} ms (runs: ${analysis.map(Math.round).join(', ')}) | ${Math.round(median(tags))} ms (/app/tags) | ${(m / median(tags)).toFixed(2)}× | ≤ ${goalMs} ms ${max(analysis) <= goalMs ? '✅' : '❌'} (worst run ${Math.round(max(analysis))} ms) |`,
    '',
    'The demo data is small (about 3,000 referrals a 年度 from 400 institutions); the API calls at 5,000,000 referrals are in the analysis section (`pnpm bench analysis`).',
    '<!-- /bench:web-data-analysis -->',
  ].join('\n');
  console.log(section);
  const file = path.join(repoRoot, 'docs/benchmarks.md');
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Benchmarks\n';
  const marker = /<!-- bench:web-data-analysis -->[\s\S]*<!-- \/bench:web-data-analysis -->/;
  fs.writeFileSync(
    file,
    marker.test(current) ? current.replace(marker, section) : `${current.trimEnd()}\n\n${section}\n`,
  );
} finally {
  await browser.close();
  await system.stop();
}
