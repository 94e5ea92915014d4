import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registry } from './registry.ts';
import { endpoint, type EndpointContract } from './core/endpoint.ts';
import { IdParams } from './core/zod-helpers.ts';
import { findRegistryProblems } from './tools/registry-checks.ts';

const good = endpoint({
  id: 'things.update',
  area: 'things',
  method: 'PUT',
  path: '/things/{id}',
  service: 'command',
  summary: 'update',
  params: IdParams,
  body: z.object({ name: z.string() }),
  response: z.object({ id: z.string() }),
  successStatus: 200,
  feature: 'tags',
  served: false,
});
const variant = (changes: Partial<EndpointContract>): EndpointContract => ({ ...good, ...changes });

describe('endpoint registry', () => {
  it('keeps every rule', () => {
    expect(findRegistryProblems(registry)).toEqual([]);
    expect(findRegistryProblems()).toEqual([]);
  });

  it('accepts a well-formed entry', () => {
    expect(findRegistryProblems([good])).toEqual([]);
  });

  it('finds duplicate ids and routes', () => {
    expect(findRegistryProblems([good, variant({ path: '/others/{id}' })])).toEqual(['duplicate id things.update']);
    expect(findRegistryProblems([good, variant({ id: 'things.rename' })])).toEqual([
      'duplicate route PUT /things/{id}',
    ]);
  });

  it('finds path params without a params key and params keys without a path param', () => {
    expect(findRegistryProblems([variant({ path: '/things/{thing_id}' })])).toHaveLength(1);
    expect(findRegistryProblems([variant({ params: undefined })])).toHaveLength(1);
    expect(findRegistryProblems([variant({ path: '/things' })])).toHaveLength(1);
  });

  it('finds bodies on GET/DELETE, unknown features, wrong services and paths', () => {
    expect(findRegistryProblems([variant({ method: 'DELETE', response: z.null(), successStatus: 204 })])).toEqual([
      'things.update: DELETE with a body',
    ]);
    expect(findRegistryProblems([variant({ feature: 'nope' as never })])).toEqual([
      'things.update: unknown feature nope',
    ]);
    expect(findRegistryProblems([variant({ service: 'query' })])).toHaveLength(1);
    expect(findRegistryProblems([variant({ path: '/api/things/{id}' })])).toHaveLength(1);
    expect(findRegistryProblems([variant({ path: '/things/:id' })])).toHaveLength(2);
  });

  it('finds 204 without a null response, downloads without text and bad ids', () => {
    expect(findRegistryProblems([variant({ successStatus: 204 })])).toHaveLength(1);
    expect(findRegistryProblems([variant({ download: true })])).toHaveLength(1);
    expect(findRegistryProblems([variant({ id: 'update' })])).toHaveLength(1);
  });
});
