import type { EndpointContract } from './core/endpoint.ts';
import { tagEndpoints } from './tags/tag.schemas.ts';

/** Every endpoint of spec §7, grouped by area. */
export const endpoints = {
  ...tagEndpoints,
} satisfies Record<string, EndpointContract>;

export type EndpointId = keyof typeof endpoints;
export const registry: readonly EndpointContract[] = Object.values(endpoints);
