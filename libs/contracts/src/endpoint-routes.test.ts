import { describe, expect, it } from 'vitest';
import { endpointRoutes } from './endpoint-routes.ts';
import { endpoints } from './registry.ts';

describe('endpointRoutes', () => {
  it('holds exactly the method, path, service and body presence of every registry endpoint', () => {
    const fromRegistry = Object.fromEntries(
      Object.entries(endpoints).map(([id, c]) => [
        id,
        { method: c.method, path: c.path, service: c.service, body: 'body' in c && c.body !== undefined },
      ]),
    );
    expect(endpointRoutes).toEqual(fromRegistry);
  });
});
