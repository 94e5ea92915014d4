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
];
if (webScripts.test) steps.push(['web components', ['pnpm', '--filter', '@renkei/web', 'test']]);
if (webScripts.e2e) steps.push(['e2e (Chromium)', ['pnpm', '--filter', '@renkei/web', 'e2e']]);

const only = process.argv.slice(2);
const started = Date.now();
const timings = [];
for (const [name, [cmd, ...args]] of steps) {
  if (only.length > 0 && !only.some((o) => name.startsWith(o))) continue;
  console.log(`\n=== ${name} ===`);
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root });
  timings.push(`${name}: ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  if (r.status !== 0) {
    console.error(`\n${name} failed (exit ${r.status ?? r.signal})`);
    process.exit(r.status ?? 1);
  }
}
console.log(`\nAll passed in ${((Date.now() - started) / 1000).toFixed(0)} s (${timings.join(', ')})`);
