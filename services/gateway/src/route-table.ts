import FindMyWay from 'find-my-way';
import { registry as defaultRegistry, toRoutePath, type EndpointContract, type OwningService } from '@renkei/contracts';

export interface RouteMatch {
  readonly service: OwningService;
  readonly endpointId: string;
  /** Whether the endpoint reads this top-level query key (its contract's query schema). */
  readonly readsQueryKey: (key: string) => boolean;
}

export interface RouteTable {
  /** The owning service of `method` + `path` (path under /api, query string allowed), or undefined. */
  lookup(method: string, path: string): RouteMatch | undefined;
  readonly size: number;
}

/**
 * The gateway's routing table, built from the contract registry: `/api` + the entry's path, matched by
 * method with find-my-way (the router Fastify itself uses), so static segments win over parameters
 * exactly as they do in the services behind it.
 */
export function buildRouteTable(registry: readonly EndpointContract[] = defaultRegistry): RouteTable {
  const router = FindMyWay({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: false });
  for (const entry of registry) {
    const match: RouteMatch = { service: entry.service, endpointId: entry.id, readsQueryKey: queryKeyReader(entry) };
    router.on(entry.method, `/api${toRoutePath(entry.path)}`, () => undefined, match);
  }
  return {
    size: registry.length,
    lookup(method, path) {
      const queryIndex = path.indexOf('?');
      const pathOnly = queryIndex >= 0 ? path.slice(0, queryIndex) : path;
      // HEAD is answered like GET by every Fastify service behind the gateway.
      const lookupMethod = method === 'HEAD' ? 'GET' : method;
      const found = router.find(lookupMethod as 'GET', pathOnly);
      return (found?.store as RouteMatch | undefined) ?? undefined;
    },
  };
}

/** The top-level keys of an entry's query schema (an object schema); every key when its shape is unknown. */
function queryKeyReader(entry: EndpointContract): (key: string) => boolean {
  if (!entry.query) return () => false;
  const shape = (entry.query as { shape?: Record<string, unknown> }).shape;
  if (!shape) return () => true;
  const keys = new Set(Object.keys(shape));
  return (key) => keys.has(key);
}
