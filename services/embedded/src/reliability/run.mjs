// `pnpm test:reliability [--long]`: the reliability and security suite alone. --long sends many more
// generated inputs per endpoint (see fuzzRuns in suite.ts).
import { spawnSync } from 'node:child_process';

const args = process.argv.slice(2);
const long = args.includes('--long');
const rest = args.filter((a) => a !== '--long');
const result = spawnSync(
  'pnpm',
  ['vitest', 'run', '--project', 'heavy', 'services/embedded/src/reliability/', ...rest],
  {
    stdio: 'inherit',
    env: { ...process.env, ...(long ? { RELIABILITY_LONG: '1' } : {}) },
  },
);
process.exit(result.status ?? 1);
