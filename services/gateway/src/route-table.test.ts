import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { endpoint, registry, type EndpointContract } from '@renkei/contracts';
import { buildRouteTable } from './route-table.ts';

const entry = (id: string, method: EndpointContract['method'], path: string, service: EndpointContract['service']) =>
  endpoint({
    id,
    area: 'test',
    method,
    path,
    service,
    summary: id,
    response: z.unknown(),
    successStatus: 200,
    feature: null,
    served: true,
  });

const table = buildRouteTable([
  entry('items.list', 'GET', '/items', 'query'),
  entry('items.create', 'POST', '/items', 'command'),
  entry('items.get', 'GET', '/items/{id}', 'query'),
  entry('items.update', 'PUT', '/items/{id}', 'command'),
  entry('items.search', 'POST', '/items/search_results', 'query'),
  entry('items.memo', 'PUT', '/items/{id}/memo', 'command'),
  entry('current_user', 'GET', '/current_user', 'identity'),
]);

describe('gateway route table', () => {
  it('routes by method and path to the owning service', () => {
    expect(table.lookup('GET', '/api/items')?.service).toBe('query');
    expect(table.lookup('POST', '/api/items')?.service).toBe('command');
    expect(table.lookup('GET', '/api/current_user')?.service).toBe('identity');
    expect(table.lookup('PUT', '/api/items/42/memo')?.endpointId).toBe('items.memo');
  });

  it('fills path parameters and ignores the query string', () => {
    expect(table.lookup('GET', '/api/items/0b9c7b3e-1111-4c4c-8888-222222222222?x=1')?.endpointId).toBe('items.get');
    expect(table.lookup('GET', '/api/items?page=2&per_page=20')?.endpointId).toBe('items.list');
  });

  it('prefers a static segment over a parameter, like the services do', () => {
    expect(table.lookup('POST', '/api/items/search_results')?.service).toBe('query');
    expect(table.lookup('PUT', '/api/items/search_results')?.endpointId).toBe('items.update');
  });

  it('answers HEAD like GET', () => {
    expect(table.lookup('HEAD', '/api/items')?.endpointId).toBe('items.list');
  });

  it('knows nothing of an unknown method or path', () => {
    expect(table.lookup('DELETE', '/api/items')).toBeUndefined();
    expect(table.lookup('GET', '/api/unknown')).toBeUndefined();
    expect(table.lookup('GET', '/items')).toBeUndefined();
    expect(table.lookup('GET', '/api/items/1/2/3')).toBeUndefined();
  });

  it('builds from the real registry, every entry reachable at its owner', () => {
    const real = buildRouteTable(registry);
    expect(real.size).toBe(registry.length);
    for (const e of registry) {
      const concrete = `/api${e.path.replace(/\{[a-z_]+\}/g, '00000000-0000-4000-8000-000000000001')}`;
      expect(real.lookup(e.method, concrete)?.service, `${e.method} ${e.path}`).toBe(e.service);
    }
  });
});
