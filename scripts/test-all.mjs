// The one test command (`pnpm test`; README and .ci/run): static checks, unit, integration, the web
// app's component tests, then the browser end-to-end tests against the real system.
import { spawnSync } from 'node:child_process';
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
  ['kill -9', ['pnpm', 'test:kill']],
];
if (webScripts.test) steps.push(['web components', ['pnpm', '--filter', '@renkei/web', 'test']]);
if (webScripts.e2e) steps.push(['e2e (Chromium)', ['pnpm', '--filter', '@renkei/web', 'e2e']]);

const only = process.argv.slice(2);
const started = Date.now();
const results = [];
// Every step runs even after a failure, so one run shows everything that is wrong.
for (const [name, [cmd, ...args]] of steps) {
  if (only.length > 0 && !only.some((o) => name.startsWith(o))) continue;
  console.log(`\n=== ${name} ===`);
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root });
  results.push({ name, ok: r.status === 0, seconds: Math.round((Date.now() - t0) / 1000) });
}
console.log('\n=== summary ===');
for (const r of results) console.log(`${r.ok ? 'ok    ' : 'FAILED'}  ${r.name} (${r.seconds} s)`);
const failed = results.filter((r) => !r.ok);
console.log(
  failed.length === 0
    ? `All passed in ${Math.round((Date.now() - started) / 1000)} s`
    : `${failed.length} step(s) failed: ${failed.map((r) => r.name).join(', ')}`,
);
process.exit(failed.length === 0 ? 0 : 1);
