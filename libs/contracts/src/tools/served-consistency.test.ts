import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { endpoint, type EndpointContract } from '../core/endpoint.ts';
import { assertServedConsistency } from './served-consistency.ts';
import { registry } from '../registry.ts';

const entry = (id: string, service: EndpointContract['service'], served: boolean) =>
  endpoint({
    id,
    area: 'test',
    method: 'GET',
    path: `/${id.replace('.', '_')}`,
    service,
    summary: id,
    response: z.null(),
    successStatus: 204,
    feature: null,
    served,
  });

const fixture = [
  entry('a.servedQuery', 'query', true),
  entry('a.pendingQuery', 'query', false),
  entry('a.servedCommand', 'command', true),
];

describe('assertServedConsistency', () => {
  it('is clean when handlers match the served entries of the service', () => {
    expect(assertServedConsistency('query', ['a.servedQuery'], fixture)).toEqual({
      missingHandlers: [],
      unregisteredHandlers: [],
    });
  });

  it('reports a served entry without a handler', () => {
    expect(assertServedConsistency('query', [], fixture).missingHandlers).toEqual(['a.servedQuery']);
    expect(assertServedConsistency('command', [], fixture).missingHandlers).toEqual(['a.servedCommand']);
  });

  it('reports handlers with no entry, another service’s entry, or an entry not marked served', () => {
    const result = assertServedConsistency(
      'query',
      ['a.servedQuery', 'a.unknown', 'a.servedCommand', 'a.pendingQuery'],
      fixture,
    );
    expect(result).toEqual({
      missingHandlers: [],
      unregisteredHandlers: ['a.pendingQuery', 'a.servedCommand', 'a.unknown'],
    });
  });

  it('uses the real registry by default', () => {
    const servedQueryIds = registry.filter((e) => e.service === 'query' && e.served).map((e) => e.id);
    expect(assertServedConsistency('query', servedQueryIds)).toEqual({
      missingHandlers: [],
      unregisteredHandlers: [],
    });
    expect(assertServedConsistency('query', ['nobody.knows']).unregisteredHandlers).toEqual(['nobody.knows']);
  });
});
