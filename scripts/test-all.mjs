// The one test command (`pnpm test`; README and .ci/run): static checks, unit, integration, the web
// app's component tests, then the browser end-to-end tests against the real system.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const webScripts = (() => {
  try {
    return JSON.parse(fs.readFileSync(path.join(root, 'web/package.json'), 'utf8')).scripts ?? {};
  } catch {
    return {};
  }
})();

const steps = [
  ['format', ['pnpm', 'format:check']],
  ['lint', ['pnpm', 'lint']],
  ['typecheck', ['pnpm', 'typecheck']],
  ['unit', ['pnpm', 'test:unit']],
  ['integration', ['pnpm', 'test:int']],
  ['reliability suite', ['pnpm', 'test:reliability']],
  // Each kill of the embedded process costs a whole start (tens of seconds on a loaded machine): CI
  // kills it 6 times per phase; `pnpm test:kill` alone does the 20 (the worker's test does 20 in both).
  ['kill -9', ['pnpm', 'test:kill'], { EMBEDDED_KILL_TEST_KILLS: process.env.EMBEDDED_KILL_TEST_KILLS ?? '6' }],
];
if (webScripts.test) steps.push(['web components', ['pnpm', '--filter', '@renkei/web', 'test']]);
if (webScripts.e2e) steps.push(['e2e (Chromium)', ['pnpm', '--filter', '@renkei/web', 'e2e']]);

const only = process.argv.slice(2);
const started = Date.now();
const results = [];

// CI shows only the tail of the output, so the summary repeats the lines that name what failed.
// ANSI colours are stripped before matching, and the list is capped so the tail stays readable.
const failureLine =
  /(^|\s)(FAIL|×|✘|✗)\s|AssertionError|Error: |^\s*\d+\) |Unhandled|Timed out|timed out|Serialized Error/;
// eslint-disable-next-line no-control-regex
const stripAnsi = (line) => line.replace(/\u001b\[[0-9;]*m/g, '');

function run(cmd, args, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['inherit', 'pipe', 'pipe'] });
    const notable = [];
    let pending = '';
    const scan = (chunk) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const raw of lines) {
        const line = stripAnsi(raw).trimEnd();
        if (failureLine.test(line) && notable.length < 400) notable.push(line.slice(0, 300));
      }
    };
    child.stdout.on('data', (c) => {
      process.stdout.write(c);
      scan(c);
    });
    child.stderr.on('data', (c) => {
      process.stderr.write(c);
      scan(c);
    });
    child.on('close', (code) => resolve({ code, notable }));
  });
}

// Every step runs even after a failure, so one run shows everything that is wrong.
for (const [name, [cmd, ...args], env] of steps) {
  if (only.length > 0 && !only.some((o) => name.startsWith(o))) continue;
  console.log(`\n=== ${name} ===`);
  const t0 = Date.now();
  const { code, notable } = await run(cmd, args, env);
  results.push({ name, ok: code === 0, notable, seconds: Math.round((Date.now() - t0) / 1000) });
}
console.log('\n=== summary ===');
for (const r of results.filter((x) => !x.ok)) {
  const unique = [...new Set(r.notable)];
  console.log(`--- what failed in ${r.name} (${unique.length} line(s), first 60) ---`);
  for (const line of unique.slice(0, 60)) console.log(line);
}
for (const r of results) console.log(`${r.ok ? 'ok    ' : 'FAILED'}  ${r.name} (${r.seconds} s)`);
const failed = results.filter((r) => !r.ok);
console.log(
  failed.length === 0
    ? `All passed in ${Math.round((Date.now() - started) / 1000)} s`
    : `${failed.length} step(s) failed: ${failed.map((r) => r.name).join(', ')}`,
);
process.exit(failed.length === 0 ? 0 : 1);
