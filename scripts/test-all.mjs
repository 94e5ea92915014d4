// The one test command (README, .ci/run): static checks, unit, integration, then browser tests.
import { spawnSync } from 'node:child_process';

const steps = [
  ['format', ['pnpm', 'format:check']],
  ['lint', ['pnpm', 'lint']],
  ['typecheck', ['pnpm', 'typecheck']],
  ['unit', ['pnpm', 'test:unit']],
  ['integration', ['pnpm', 'test:int']],
];
for (const [name, [cmd, ...args]] of steps) {
  console.log(`\n=== ${name} ===`);
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`\n${name} failed`);
    process.exit(r.status ?? 1);
  }
}
