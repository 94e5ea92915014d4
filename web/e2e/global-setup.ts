import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { liteTenant } from './fixtures.ts';
import { repoRoot, startSystem } from './system.ts';

/** The real system for the whole run, plus a second tenant whose features lack tags. */
export default async function globalSetup() {
  const system = await startSystem();
  try {
    execFileSync(
      'pnpm',
      [
        'ops',
        'tenant',
        'add',
        liteTenant.slug,
        '--name',
        liteTenant.name,
        '--owner',
        liteTenant.email,
        '--password',
        liteTenant.password,
        '--plan',
        'starter',
      ],
      { cwd: repoRoot, env: system.env, stdio: 'pipe' },
    );
    // No screen switches a single feature off; an operator does, with the ops CLI.
    execFileSync('pnpm', ['ops', 'tenant', 'update', liteTenant.slug, '--features-off', 'tags'], {
      cwd: repoRoot,
      env: system.env,
      stdio: 'pipe',
    });
    process.env.E2E_BASE_URL = system.baseURL;
    // Specs read the SMTP catcher's mail (invitations) through `pnpm ops mail` on this data dir.
    process.env.E2E_DATA_DIR = system.env.RENKEI_DATA_DIR;
    fs.mkdirSync(path.join(repoRoot, 'web/test-results/screenshots'), { recursive: true });
  } catch (error) {
    await system.stop();
    throw error;
  }
  return system.stop;
}
