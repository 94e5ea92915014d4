import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registry } from './registry.ts';
import { featureKeys } from './core/features.ts';
import { pathParamNames } from './core/endpoint.ts';

function objectKeys(schema: z.ZodType | undefined): string[] {
  if (!schema) return [];
  const def = (schema as { _zod: { def: { type: string; shape?: Record<string, unknown> } } })._zod.def;
  return def.type === 'object' && def.shape ? Object.keys(def.shape) : [];
}

describe('endpoint registry', () => {
  it('has unique ids', () => {
    const ids = registry.map((e) => e.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it('has unique method + path pairs', () => {
    const keys = registry.map((e) => `${e.method} ${e.path}`);
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
  });

  it('gives every {param} of a path a params schema key, and no params key without one', () => {
    const problems: string[] = [];
    for (const e of registry) {
      const names = pathParamNames(e.path).sort();
      const keys = objectKeys(e.params).sort();
      if (JSON.stringify(names) !== JSON.stringify(keys)) {
        problems.push(`${e.id}: path ${JSON.stringify(names)} vs params ${JSON.stringify(keys)}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('puts paths in spec notation: leading slash, snake_case segments, no /api prefix', () => {
    const bad = registry.filter((e) => !/^(\/([a-z0-9_]+|\{[a-z_]+\}))+$/.test(e.path) || e.path.startsWith('/api/'));
    expect(bad.map((e) => e.path)).toEqual([]);
  });

  it('sends no body with GET or DELETE', () => {
    const bad = registry.filter((e) => (e.method === 'GET' || e.method === 'DELETE') && e.body !== undefined);
    expect(bad.map((e) => e.id)).toEqual([]);
  });

  it('gates only on known feature keys', () => {
    const known = new Set<string>(featureKeys);
    const bad = registry.filter((e) => e.feature !== null && !known.has(e.feature));
    expect(bad.map((e) => e.id)).toEqual([]);
  });

  it('routes every write to the command service or identity', () => {
    const bad = registry.filter((e) => e.service === 'query' && e.method !== 'GET' && e.method !== 'POST');
    expect(bad.map((e) => e.id)).toEqual([]);
  });

  it('prefixes every id with a camelCase area name and a dot', () => {
    const bad = registry.filter((e) => !/^[a-z][a-zA-Z]*\.[a-z][a-zA-Z]*$/.test(e.id));
    expect(bad.map((e) => e.id)).toEqual([]);
  });

  it('answers 204 exactly with an empty (null) response', () => {
    const bad = registry.filter((e) => (e.successStatus === 204) !== e.response instanceof z.ZodNull);
    expect(bad.map((e) => e.id)).toEqual([]);
  });

  it('marks downloads and multipart uploads consistently', () => {
    expect(registry.filter((e) => e.multipart && e.method === 'GET').map((e) => e.id)).toEqual([]);
    expect(registry.filter((e) => e.download && !(e.response instanceof z.ZodString)).map((e) => e.id)).toEqual([]);
  });
});
