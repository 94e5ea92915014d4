import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { envVars, type Deployment } from './env.ts';
import { envNamesIn, scanEnvReads } from './env-scan.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const deployments = ['gateway', 'identity', 'command', 'query', 'worker'] as const;

interface ComposeService {
  command?: string[];
  environment?: Record<string, string | number | boolean | null>;
  build?: { dockerfile?: string };
}
const compose = parse(fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
};
const reads = Object.fromEntries(
  (['embedded', ...deployments] as const).map((d) => [d, scanEnvReads(root, `services/${d}`)]),
) as Record<Deployment, Map<string, string[]>>;
const devOnly = new Set(envVars.filter((v) => v.devOnly).map((v) => v.name));

describe('docker-compose.yml and the documented environment', () => {
  it('finds the variables a source reads', () => {
    const names = envNamesIn(
      "const a = process.env.DATABASE_URL; const b = env.PORT; env['HOST']; required('OIDC_ISSUER'); process.env.lower;",
    );
    expect([...names].sort()).toEqual(['DATABASE_URL', 'HOST', 'OIDC_ISSUER', 'PORT']);
    expect(reads.command.get('OIDC_ISSUER')).toContain('services/command/src/main.ts');
  });

  it.each(deployments)('runs %s as its own container from the deploy image', (name) => {
    const service = compose.services[name];
    expect(service, name).toBeDefined();
    expect(service!.build?.dockerfile).toBe('deploy/Dockerfile');
    expect(service!.command).toEqual(['node', '--import', 'tsx', `services/${name}/src/main.ts`]);
    expect(fs.existsSync(path.join(root, `services/${name}/src/main.ts`))).toBe(true);
  });

  it('runs the production backing services', () => {
    expect(Object.keys(compose.services)).toEqual(expect.arrayContaining(['postgres', 'eventstore', 'kafka']));
  });

  it.each(deployments)('sets every variable %s reads', (name) => {
    const environment = compose.services[name]!.environment ?? {};
    const missing = [...reads[name].keys()].filter((v) => !devOnly.has(v) && !(v in environment));
    expect(missing, `${name} reads these but docker-compose.yml does not set them`).toEqual([]);
  });

  it('points every internal URL at a service that exists', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const [key, value] of Object.entries(service.environment ?? {})) {
        if (typeof value !== 'string' || !/_URL$/.test(key) || value.includes('${')) continue;
        const host = new URL(value).hostname;
        expect(compose.services, `${name}.${key} → ${host}`).toHaveProperty(host);
      }
    }
  });

  it('lists in env.ts exactly the deployments that read each variable', () => {
    const listed = new Map(envVars.map((v) => [v.name, v]));
    for (const d of ['embedded', ...deployments] as const) {
      for (const name of reads[d].keys()) {
        expect(listed.has(name), `${name} (read by ${d}: ${reads[d].get(name)!.join(', ')}) is not in env.ts`).toBe(
          true,
        );
      }
    }
    for (const v of envVars) {
      for (const d of ['embedded', ...deployments] as const) {
        if (v.readBy.length === 0) continue;
        expect(v.readBy.includes(d), `env.ts: is ${v.name} read by ${d}?`).toBe(reads[d].has(v.name));
      }
    }
  });

  it('documents every variable in README', () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const undocumented = envVars.map((v) => v.name).filter((name) => !readme.includes(`\`${name}\``));
    expect(undocumented).toEqual([]);
  });
});
