import type { z } from 'zod';
import type { FeatureKey } from './features.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';
/** The service that owns an endpoint. Each has its own token audience. */
export type OwningService = 'identity' | 'command' | 'query';
export type Audience = 'main' | 'command' | 'query';

export const audienceOf: Record<OwningService, Audience> = {
  identity: 'main',
  command: 'command',
  query: 'query',
};

/**
 * One HTTP endpoint of the spec (§7). The registry of these is the single source of truth: services
 * register handlers from it, the gateway routes by it, the web client is typed by it and OpenAPI is
 * generated from it.
 */
export interface EndpointContract<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
> {
  /** Stable identifier, `<area>.<action>`, used by handlers and the client. */
  readonly id: string;
  /** Area of spec §7 this belongs to (for `pnpm ops contracts`). */
  readonly area: string;
  readonly method: HttpMethod;
  /** Path under /api in the spec's notation: `/tags/{id}`. */
  readonly path: string;
  readonly service: OwningService;
  readonly summary: string;
  readonly params?: P;
  readonly query?: Q;
  /** JSON body; for multipart endpoints, the non-file fields. */
  readonly body?: B;
  readonly response: R;
  /** Status of a successful answer. */
  readonly successStatus: 200 | 201 | 202 | 204;
  /** Feature flag (spec §3 enumeration) that must be on for the tenant; null when always available. */
  readonly feature: FeatureKey | null;
  /** Only owners may call it (the roles matrix of docs/decisions.md; members get 403). */
  readonly ownerOnly?: boolean;
  /**
   * The vendor's support account (`cs_account`): `only` — no one else may call it (tenant settings);
   * `denied` — it may not, whatever its role (patient-level rows). Absent: as its role allows.
   */
  readonly csAccount?: 'only' | 'denied';
  /** multipart/form-data request. */
  readonly multipart?: boolean;
  /**
   * `false` on a command PUT or DELETE that has no version to race on, so If-Match is not part of it:
   * a set that answers the same however often it is sent (a like), or a write on what is no versioned
   * record (an import). Absent: it honours If-Match (the reliability suite races it).
   */
  readonly versionGuarded?: false;
  /** Streams a file instead of JSON: `true` a CSV export, `'image'` an image (the tenant logo). */
  readonly download?: boolean | 'image';
  /** Whether a handler answers it today. A test keeps this honest in both directions. */
  readonly served: boolean;
}

export function endpoint<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType>(
  contract: EndpointContract<P, Q, B, R>,
): EndpointContract<P, Q, B, R> {
  return contract;
}

export type ParamsOf<E> = E extends EndpointContract<infer P, any, any, any> ? z.infer<P> : never;
export type QueryOf<E> = E extends EndpointContract<any, infer Q, any, any> ? z.infer<Q> : never;
export type BodyOf<E> = E extends EndpointContract<any, any, infer B, any> ? z.infer<B> : never;
export type ResponseOf<E> = E extends EndpointContract<any, any, any, infer R> ? z.infer<R> : never;

/** `/tags/{id}` → `/tags/:id` */
export function toRoutePath(path: string): string {
  return path.replace(/\{([a-z_]+)\}/g, ':$1');
}

/** Fills `{name}` placeholders; the client checks required ids before calling this. */
export function fillPath(path: string, params: Record<string, string | number>): string {
  return path.replace(/\{([a-z_]+)\}/g, (_, name: string) => encodeURIComponent(String(params[name])));
}

export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]!);
}
