import type { z } from 'zod';
import {
  audienceOf,
  clientVersion,
  clientVersionHeader,
  encodeQuery,
  endpointRoutes,
  errorMessages,
  fillPath,
  minPositionHeader,
  pathParamNames,
  positionHeader,
  type Audience,
  type EndpointContract,
  type EndpointRoute,
  type QueryValue,
} from '@renkei/contracts/client';
// Types only: zod and the registry's schemas stay out of the entry chunk (the client calls through endpointRoutes).
import type { endpoints } from '@renkei/contracts';
import { ApiError, RequiredParameterError, networkSubCode } from './api-errors.ts';

type Input<S> = S extends z.ZodType ? z.input<S> : never;
type ParamsPart<E> =
  E extends EndpointContract<infer P, any, any, any> ? (z.ZodType extends P ? unknown : { params: Input<P> }) : never;
type QueryPart<E> =
  E extends EndpointContract<any, infer Q, any, any> ? (z.ZodType extends Q ? unknown : { query?: Input<Q> }) : never;
type BodyPart<E> =
  E extends EndpointContract<any, any, infer B, any> ? (z.ZodType extends B ? unknown : { body: Input<B> }) : never;

/** Arguments of one endpoint's call: its path params, query and body as the contract declares them. */
type CallArgs<E> = ParamsPart<E> &
  QueryPart<E> &
  BodyPart<E> & {
    /** Optimistic-concurrency version sent as If-Match. */
    ifMatch?: number | string;
    /** A create's Idempotency-Key: a retry of the same request never makes a second record. */
    idempotencyKey?: string;
    /** Receives the answer's ETag (null when it has none): a version a list's GET gives only there. */
    onEtag?: (etag: string | null) => void;
    signal?: AbortSignal;
  };
type CallResult<E> = E extends EndpointContract<any, any, any, infer R> ? z.output<R> : never;

type Endpoints = typeof endpoints;
/** One function per endpoint of the contract registry. */
export type ApiClient = {
  [K in keyof Endpoints]: (args: CallArgs<Endpoints[K]>) => Promise<CallResult<Endpoints[K]>>;
};

export interface ApiClientDeps {
  baseUrl: string;
  /** A bearer token for the audience, acquired silently for the active account. */
  getToken: (audience: Audience) => Promise<string>;
  fetch?: typeof fetch;
}

export interface ApiTransport {
  call<E extends EndpointContract>(contract: E, args: CallArgs<E>): Promise<CallResult<E>>;
  /** The same call from an endpoint's run-time route alone (the typed client uses it). */
  send(route: EndpointRoute, args: unknown): Promise<unknown>;
  /** The global position of the last command's last event (read-your-writes). */
  lastPosition(): string | null;
}

function createTransport(deps: ApiClientDeps): ApiTransport {
  let lastPosition: string | null = null;
  const doFetch = deps.fetch ?? ((input, init) => globalThis.fetch(input, init));

  async function call<E extends EndpointContract>(contract: E, rawArgs: CallArgs<E>): Promise<CallResult<E>> {
    return send(contract, rawArgs) as Promise<CallResult<E>>;
  }

  async function send(contract: EndpointRoute | EndpointContract, rawArgs: unknown): Promise<unknown> {
    const hasBody = Boolean(contract.body);
    const args = (rawArgs ?? {}) as {
      params?: Record<string, unknown>;
      query?: Record<string, unknown>;
      body?: unknown;
      ifMatch?: number | string;
      idempotencyKey?: string;
      onEtag?: (etag: string | null) => void;
      signal?: AbortSignal;
    };
    const params: Record<string, string | number> = {};
    for (const name of pathParamNames(contract.path)) {
      const value = args.params?.[name];
      if (value === undefined || value === null || value === '') throw new RequiredParameterError(name);
      params[name] = value as string | number;
    }
    if (hasBody && (args.body === undefined || args.body === null)) throw new RequiredParameterError('body');

    let url = `${deps.baseUrl}${fillPath(contract.path, params)}`;
    if (args.query) {
      const qs = encodeQuery(args.query as Record<string, QueryValue>);
      if (qs) url += `?${qs}`;
    }

    let response: Response;
    try {
      // Offline, not even a token is asked for: a token refresh would wait on the network and then
      // try a sign-in redirect, leaving the page. The caller gets the network error at once.
      if (typeof navigator !== 'undefined' && navigator.onLine === false) {
        throw new ApiError(500, errorMessages[500], networkSubCode);
      }
      const token = await deps.getToken(audienceOf[contract.service]);
      const headers: Record<string, string> = {
        authorization: `Bearer ${token}`,
        [clientVersionHeader]: clientVersion,
        accept: 'application/json',
      };
      // A multipart endpoint's body is a FormData (fields and files): the browser sets its boundary.
      const form = typeof FormData !== 'undefined' && args.body instanceof FormData ? args.body : null;
      if (hasBody && !form) headers['content-type'] = 'application/json';
      if (args.ifMatch !== undefined) headers['if-match'] = String(args.ifMatch);
      if (args.idempotencyKey !== undefined) headers['idempotency-key'] = args.idempotencyKey;
      // Every read of the query service waits for the last write, searches sent as POST included.
      if (contract.service === 'query' && lastPosition) headers[minPositionHeader] = lastPosition;
      response = await doFetch(url, {
        method: contract.method,
        headers,
        body: form ?? (hasBody ? JSON.stringify(args.body) : undefined),
        credentials: 'include',
        signal: args.signal,
      });
    } catch (error) {
      if (error instanceof ApiError || (error instanceof DOMException && error.name === 'AbortError')) throw error;
      // Anything thrown that is not an answer (network failure, token failure) is a 500 to the caller;
      // one that never reached the server says so, so a form can keep its record and send it later.
      const unreachable =
        error instanceof TypeError || (typeof navigator !== 'undefined' && navigator.onLine === false);
      throw new ApiError(500, errorMessages[500], unreachable ? networkSubCode : undefined);
    }

    if (response.status < 200 || response.status > 299) throw await toApiError(response);
    args.onEtag?.(response.headers.get('etag'));
    if (contract.method !== 'GET') {
      const position = response.headers.get(positionHeader);
      if (position) lastPosition = position;
    }
    if (response.status === 204) return null;
    const text = await response.text();
    return text ? (JSON.parse(text) as unknown) : null;
  }

  return { call, send, lastPosition: () => lastPosition };
}

async function toApiError(response: Response): Promise<ApiError> {
  let body: { message?: unknown; sub_code?: unknown; errors?: unknown } = {};
  try {
    body = (await response.json()) as typeof body;
  } catch {}
  const fallback = errorMessages[response.status as keyof typeof errorMessages] ?? errorMessages[500];
  const errors = Array.isArray(body.errors)
    ? body.errors.filter(
        (e): e is { field: string; message: string } => typeof e?.field === 'string' && typeof e?.message === 'string',
      )
    : [];
  return new ApiError(
    response.status,
    typeof body.message === 'string' ? body.message : fallback,
    typeof body.sub_code === 'string' ? body.sub_code : undefined,
    errors,
  );
}

export function createApiClient(deps: ApiClientDeps): ApiClient & { transport: ApiTransport } {
  const transport = createTransport(deps);
  const client = Object.fromEntries(
    Object.entries(endpointRoutes).map(([key, route]) => [key, (args: unknown) => transport.send(route, args)]),
  ) as ApiClient;
  return Object.assign(client, { transport });
}
