import { z } from 'zod';
import { pathParamNames, type EndpointContract } from '../core/endpoint.ts';
import { featureKeys } from '../core/features.ts';
import { registry as defaultRegistry } from '../registry.ts';

function objectKeys(schema: z.ZodType | undefined): string[] {
  if (!schema) return [];
  const def = (schema as unknown as { _zod: { def: { type: string; shape?: Record<string, unknown> } } })._zod.def;
  return def.type === 'object' && def.shape ? Object.keys(def.shape) : [];
}

const duplicates = (values: string[]) => [...new Set(values.filter((v, i) => values.indexOf(v) !== i))];

/**
 * The rules every registry entry keeps, as a list of problems (empty when all hold): unique ids and
 * method + path pairs, `{param}`s matching the params schema, no body on GET or DELETE, known feature
 * keys, 204 exactly with a null response, downloads answering a string, ids `<area>.<action>`.
 */
export function findRegistryProblems(registry: readonly EndpointContract[] = defaultRegistry): string[] {
  const problems: string[] = [];
  for (const id of duplicates(registry.map((e) => e.id))) problems.push(`duplicate id ${id}`);
  for (const route of duplicates(registry.map((e) => `${e.method} ${e.path}`))) {
    problems.push(`duplicate route ${route}`);
  }
  const known = new Set<string>(featureKeys);
  for (const e of registry) {
    const names = pathParamNames(e.path).sort();
    const keys = objectKeys(e.params).sort();
    if (names.join(',') !== keys.join(',')) {
      problems.push(`${e.id}: path params [${names.join(', ')}] but params schema [${keys.join(', ')}]`);
    }
    if (!/^(\/([a-z0-9_]+|\{[a-z_]+\}))+$/.test(e.path) || e.path.startsWith('/api/')) {
      problems.push(`${e.id}: path ${e.path} is not in spec notation`);
    }
    if ((e.method === 'GET' || e.method === 'DELETE') && e.body !== undefined) {
      problems.push(`${e.id}: ${e.method} with a body`);
    }
    if (e.feature !== null && !known.has(e.feature)) problems.push(`${e.id}: unknown feature ${e.feature}`);
    if ((e.successStatus === 204) !== e.response instanceof z.ZodNull) {
      problems.push(`${e.id}: 204 goes with a null response and only with it`);
    }
    if (e.download && !(e.response instanceof z.ZodString)) problems.push(`${e.id}: download must answer a string`);
    if (e.multipart && (e.method === 'GET' || e.method === 'DELETE')) {
      problems.push(`${e.id}: multipart on ${e.method}`);
    }
    if (!/^[a-z][a-zA-Z]*\.[a-z][a-zA-Z]*$/.test(e.id)) problems.push(`${e.id}: id is not <area>.<action>`);
    if (e.service === 'query' && e.method !== 'GET' && e.method !== 'POST') {
      problems.push(`${e.id}: ${e.method} is a write and cannot belong to query`);
    }
    if (e.service === 'command' && e.method === 'GET') problems.push(`${e.id}: GET is a read and belongs to query`);
  }
  return problems;
}
