import type { EndpointContract, OwningService } from '../core/endpoint.ts';
import { registry as defaultRegistry } from '../registry.ts';

export interface ServedConsistency {
  /** Entries of this service marked `served: true` that no handler answers. */
  missingHandlers: string[];
  /**
   * Handlers with no matching entry: an unknown id, an entry owned by another service, or an entry
   * still marked `served: false`.
   */
  unregisteredHandlers: string[];
}

/**
 * Compares a service's registered handler ids (`app.servedEndpointIds()`) with the registry, so the
 * `served` flags stay honest in both directions. A service's test expects both lists empty.
 */
export function assertServedConsistency(
  service: OwningService,
  servedIds: readonly string[],
  registry: readonly EndpointContract[] = defaultRegistry,
): ServedConsistency {
  const byId = new Map(registry.map((e) => [e.id, e]));
  const served = new Set(servedIds);
  const missingHandlers = registry
    .filter((e) => e.service === service && e.served && !served.has(e.id))
    .map((e) => e.id)
    .sort();
  const unregisteredHandlers = [...served]
    .filter((id) => {
      const entry = byId.get(id);
      return !entry || entry.service !== service || !entry.served;
    })
    .sort();
  return { missingHandlers, unregisteredHandlers };
}
