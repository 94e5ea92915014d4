// `pnpm bench:web` (not a test): gzip size of the JavaScript the first page loads, and the
// largest-contentful-paint of /app/tags in headless Chromium on localhost. Appends to docs/benchmarks.md.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { chromium, type Page } from 'playwright-core';
import { chromiumArgs } from '../playwright.config.ts';
import { demoOwner } from '../e2e/fixtures.ts';
import { repoRoot, startSystem } from '../e2e/system.ts';

const runs = 5;
const budgetKiB = 250;

async function signIn(page: Page, baseURL: string) {
  await page.goto(`${baseURL}/app/tags`);
  await page.waitForURL(/\/oidc\/interaction\//);
  await page.locator('input[name=login]').fill(demoOwner.email);
  await page.locator('input[name=password]').fill(demoOwner.password);
  await page.locator('button[type=submit]').click();
  await page.waitForURL(/\/app\/tags/);
  await page.getByRole('heading', { name: 'タグ管理' }).waitFor();
}

/** One load of /app/tags by a signed-in user: the JS it fetched and its LCP. */
async function measure(page: Page, baseURL: string) {
  const scripts = new Map<string, Promise<Buffer>>();
  const onResponse = (response: import('playwright-core').Response) => {
    const url = response.url();
    if (url.startsWith(`${baseURL}/app/`) && url.endsWith('.js')) scripts.set(url, response.body());
  };
  page.on('response', onResponse);
  await page.goto(`${baseURL}/app/tags`, { waitUntil: 'load' });
  await page.getByRole('heading', { name: 'タグ管理' }).waitFor();
  await page.waitForLoadState('networkidle');
  const lcp = await page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        new PerformanceObserver((list) => {
          const entries = list.getEntries();
          resolve(entries[entries.length - 1]!.startTime);
        }).observe({ type: 'largest-contentful-paint', buffered: true });
        setTimeout(() => resolve(-1), 5000);
      }),
  );
  page.off('response', onResponse);
  let raw = 0;
  let gzip = 0;
  const detail: string[] = [];
  for (const [url, pending] of scripts) {
    const body = await pending;
    const g = zlib.gzipSync(body, { level: 9 }).length;
    raw += body.length;
    gzip += g;
    detail.push(`${(g / 1024).toFixed(1)} ${url.slice(url.lastIndexOf('/') + 1)}`);
  }
  if (process.env.BENCH_DETAIL) console.log(detail.sort((a, b) => parseFloat(b) - parseFloat(a)).join('\n'));
  return { files: scripts.size, raw, gzip, lcp, detail };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const kib = (n: number) => (n / 1024).toFixed(1);

const system = await startSystem();
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: chromiumArgs,
});
try {
  const context = await browser.newContext({
    ignoreHTTPSErrors: true,
    locale: 'ja-JP',
    viewport: { width: 1280, height: 800 },
  });
  const page = await context.newPage();
  await signIn(page, system.baseURL);
  await measure(page, system.baseURL); // warm-up: server-side caches and compiled routes
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await measure(page, system.baseURL));
  const js = results[results.length - 1]!;
  const lcp = median(results.map((r) => r.lcp));
  const date = new Date().toISOString().slice(0, 10);
  const section = [
    '<!-- bench:web -->',
    '## Web: first-page JavaScript and LCP of /app/tags (`pnpm bench:web`)',
    '',
    `Measured ${date} on this machine (2 shared cores), headless Debian Chromium, localhost https, signed-in demo owner, ${runs} loads after one warm-up.`,
    '',
    '| Metric | Result | Goal |',
    '|---|---|---|',
    `| JavaScript loaded by the first page (gzip -9) | ${kib(js.gzip)} KiB in ${js.files} files (${kib(js.raw)} KiB raw) | ≤ ${budgetKiB} KiB |`,
    `| Largest contentful paint of /app/tags (median) | ${Math.round(lcp)} ms (runs: ${results.map((r) => Math.round(r.lcp)).join(', ')}) | — |`,
    '',
    `Largest files (KiB gzip): ${js.detail
      .sort((a, b) => parseFloat(b) - parseFloat(a))
      .slice(0, 6)
      .join(', ')}. The entry chunk holds React DOM, MSAL, TanStack Router and Query and Mantine's core, and calls`,
    'endpoints through the zod-free `@renkei/contracts/client`; route search validation is zod-free too, so zod and the',
    'endpoint schemas load with the forms and routes that use them. Sentry (150 KiB) and the notifications load only when needed.',
    '',
    'The LCP includes MSAL start-up, the silent token calls, GET /api/current_user and the tag list query.',
    '<!-- /bench:web -->',
  ].join('\n');
  console.log(section);
  const file = path.join(repoRoot, 'docs/benchmarks.md');
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Benchmarks\n';
  const next = /<!-- bench:web -->[\s\S]*<!-- \/bench:web -->/.test(current)
    ? current.replace(/<!-- bench:web -->[\s\S]*<!-- \/bench:web -->/, section)
    : `${current.trimEnd()}\n\n${section}\n`;
  fs.writeFileSync(file, next);
  if (js.gzip > budgetKiB * 1024) console.warn(`First-page JavaScript is over the ${budgetKiB} KiB budget.`);
} finally {
  await browser.close();
  await system.stop();
}
