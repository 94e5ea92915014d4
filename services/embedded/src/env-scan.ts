import fs from 'node:fs';
import path from 'node:path';

/**
 * The environment variables a package's production code reads, found in its sources and in the
 * sources of every workspace package it depends on (transitively): dot or bracket access on
 * `process.env` or on an `env` object, and required(…)-style helpers. Tests and test helpers
 * are not production code.
 */
export function scanEnvReads(repoRoot: string, packageDir: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const dir of workspaceClosure(repoRoot, packageDir)) {
    for (const file of sourceFiles(path.join(repoRoot, dir, 'src'))) {
      const text = fs.readFileSync(file, 'utf8');
      for (const name of envNamesIn(text)) {
        const where = found.get(name) ?? [];
        where.push(path.relative(repoRoot, file));
        found.set(name, where);
      }
    }
  }
  return found;
}

export function envNamesIn(source: string): Set<string> {
  const names = new Set<string>();
  const patterns = [
    /\bprocess\.env\.([A-Z][A-Z0-9_]*)/g,
    /\benv\.([A-Z][A-Z0-9_]*)/g,
    /\benv\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\]/g,
    /\b(?:required|requiredEnv|need|optionalEnv)\(\s*['"]([A-Z][A-Z0-9_]*)['"]/g,
  ];
  for (const pattern of patterns) for (const m of source.matchAll(pattern)) names.add(m[1]!);
  return names;
}

function workspaceClosure(repoRoot: string, packageDir: string): string[] {
  const byName = new Map<string, string>();
  for (const group of ['libs', 'services']) {
    for (const entry of fs.readdirSync(path.join(repoRoot, group))) {
      const pkg = path.join(repoRoot, group, entry, 'package.json');
      if (fs.existsSync(pkg)) byName.set(JSON.parse(fs.readFileSync(pkg, 'utf8')).name, `${group}/${entry}`);
    }
  }
  const seen = new Set<string>();
  const visit = (dir: string) => {
    if (seen.has(dir)) return;
    seen.add(dir);
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, dir, 'package.json'), 'utf8'));
    for (const dep of Object.keys(pkg.dependencies ?? {})) {
      const depDir = byName.get(dep);
      if (depDir) visit(depDir);
    }
  };
  visit(packageDir);
  return [...seen];
}

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'testing' && entry.name !== 'node_modules') out.push(...sourceFiles(full));
    } else if (
      /\.(ts|mjs|js)$/.test(entry.name) &&
      !/\.(test|spec)\.ts$/.test(entry.name) &&
      !/test-database\.ts$/.test(entry.name)
    ) {
      out.push(full);
    }
  }
  return out;
}
