import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import helmet from 'helmet';
import rateLimit from '@fastify/rate-limit';
import underPressure from '@fastify/under-pressure';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { validatorCompiler } from 'fastify-type-provider-zod';
import type { LoggerOptions } from 'pino';
import { decodeQuery, errorMessages, positionHeader, repairPercentEscapes, type Audience } from '@renkei/contracts';
import { formatPosition, type EventStore, type Position } from '@renkei/event-store';
import { bearerToken, installTokenVerification, knownAccount, type AuthContext, type AuthOptions } from './auth.ts';
import { followAccountRevocations, type AccountRevocations } from './revocations.ts';
import { errorHandler } from './error-handler.ts';
import { installMetrics } from './metrics.ts';
import { responseSerializerCompiler } from './response-serializer.ts';

/** Waits until the named projections have passed `position`; false when the time ran out. */
export type WaitForPosition = (
  projections: readonly string[],
  position: Position,
  timeoutMs: number,
) => Promise<boolean>;

export const MIN_POSITION_TIMEOUT_MS = Number(process.env.MIN_POSITION_TIMEOUT_MS ?? 5000);

export interface ServiceAppOptions {
  /** Service name, used in logs and metrics (`command`, `query`, `identity`). */
  name: string;
  audience: Audience;
  auth: AuthOptions;
  /**
   * The event store identity publishes account changes to: the app follows them and refuses the
   * tokens of deleted or deactivated accounts before they expire (`followAccountRevocations`).
   */
  accountEvents: EventStore;
  /** A pino instance, pino options, or false to stay silent (tests). Default: info level. */
  logger?: boolean | FastifyBaseLogger | LoggerOptions;
  /**
   * Per account for a token already verified, else per client address (many staff of one hospital
   * share one address). false disables it (benchmarks). Default 600 requests per minute.
   */
  rateLimit?: false | { max: number; timeWindow: number | string };
  /** 503 when the process is saturated. false disables it. */
  underPressure?:
    false | { maxEventLoopDelay?: number; maxHeapUsedBytes?: number; maxRssBytes?: number; sampleInterval?: number };
  /** The OpenAPI document of this service (`buildOpenApiDocument({ service })`), served at /docs. */
  openapi: object;
  /** Checks /readyz runs; each throws when its dependency is not ready. */
  readinessChecks?: Record<string, () => Promise<unknown>>;
  /** Needed by query services for `X-Min-Position`. */
  waitForPosition?: WaitForPosition;
  minPositionTimeoutMs?: number;
}

export interface ServiceKitState {
  readonly name: string;
  readonly audience: Audience;
  readonly auth: AuthOptions;
  readonly revocations: AccountRevocations;
  readonly waitForPosition: WaitForPosition | undefined;
  readonly minPositionTimeoutMs: number;
  readonly served: string[];
  readonly readinessChecks: Record<string, () => Promise<unknown>>;
}

declare module 'fastify' {
  interface FastifyInstance {
    serviceKit: ServiceKitState;
    /** Ids of the registry entries this app has handlers for. */
    servedEndpointIds(): string[];
    addReadinessCheck(name: string, check: () => Promise<unknown>): void;
  }
  interface FastifyRequest {
    /** Set on every endpoint registered with `registerEndpoint` (it answers 401 otherwise). */
    auth: AuthContext | null;
  }
  interface FastifyReply {
    /** Read-your-writes: the global position of the command's last event, as `X-Position`. */
    position(position: Position): FastifyReply;
  }
}

function loggerOption(logger: ServiceAppOptions['logger'], name: string) {
  if (logger === undefined) return { logger: { level: process.env.LOG_LEVEL ?? 'info', name } };
  if (typeof logger === 'boolean') return { logger };
  if ('child' in logger && typeof logger.child === 'function')
    return { loggerInstance: logger.child({ service: name }) };
  return { logger: { name, ...(logger as LoggerOptions) } };
}

/**
 * A Fastify app with everything every Renkei service shares: request ids, security headers, rate
 * limiting, back-pressure, metrics, health and readiness, OpenAPI UI, the zod type provider with the
 * query-string codec of the contracts, and the one error handler. Routes come with `registerEndpoint`.
 */
export async function createServiceApp(options: ServiceAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...loggerOption(options.logger, options.name),
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    routerOptions: { querystringParser: (s: string) => decodeQuery(s) },
    // A malformed escape (`?page=%ZZ`, `/tags/%E3`) is read as the text it is; the route's schema then
    // answers, in the service's error body, instead of the router's default one.
    rewriteUrl: (request) => repairPercentEscapes(request.url ?? '/'),
    // Whatever the router still refuses before any hook runs answers in the service's error body too.
    frameworkErrors: (error, request, reply) => frameworkError(error, request as FastifyRequest, reply as FastifyReply),
    // Behind the gateway: the client address is in X-Forwarded-For.
    trustProxy: true,
    bodyLimit: 1024 * 1024,
  }) as unknown as FastifyInstance;

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(responseSerializerCompiler);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send({ status: 404, message: errorMessages[404], request_id: request.id });
  });

  const revocations = await followAccountRevocations(options.accountEvents, {
    onError: (error) => app.log.error({ err: error }, 'account revocation follower failed; retrying'),
  });
  app.addHook('onClose', () => revocations.close());
  const state: ServiceKitState = {
    name: options.name,
    audience: options.audience,
    auth: options.auth,
    revocations,
    waitForPosition: options.waitForPosition,
    minPositionTimeoutMs: options.minPositionTimeoutMs ?? MIN_POSITION_TIMEOUT_MS,
    served: [],
    readinessChecks: { ...options.readinessChecks },
  };
  app.decorate('serviceKit', state);
  app.decorate('servedEndpointIds', () => [...state.served]);
  app.decorate('addReadinessCheck', (name: string, check: () => Promise<unknown>) => {
    state.readinessChecks[name] = check;
  });
  app.decorateRequest('auth', null);
  app.decorateReply('position', function (this: import('fastify').FastifyReply, position: Position) {
    return this.header(positionHeader, formatPosition(position));
  });

  const headers = securityHeaders();
  app.addHook('onRequest', (request, reply, done) => {
    void reply.headers(headers).header('x-request-id', request.id);
    // API answers are per account: no shared or browser cache may keep them (errors included).
    if (request.url.startsWith('/api/')) void reply.header('cache-control', 'no-store');
    done();
  });
  if (options.underPressure !== false) {
    await app.register(underPressure, {
      maxEventLoopDelay: options.underPressure?.maxEventLoopDelay ?? 2000,
      maxHeapUsedBytes: options.underPressure?.maxHeapUsedBytes ?? 0,
      maxRssBytes: options.underPressure?.maxRssBytes ?? 0,
      ...(options.underPressure?.sampleInterval ? { sampleInterval: options.underPressure.sampleInterval } : {}),
      retryAfter: 5,
    });
  }
  if (options.rateLimit !== false) {
    await app.register(rateLimit, {
      max: options.rateLimit?.max ?? 600,
      timeWindow: options.rateLimit?.timeWindow ?? '1 minute',
      keyGenerator: (request) => {
        const token = bearerToken(request.headers.authorization);
        const account = token ? knownAccount(token, options.auth) : null;
        return account ? `account:${account}` : `ip:${request.ip}`;
      },
      errorResponseBuilder: (_request, context) => {
        const error = new Error(errorMessages[429]) as Error & { statusCode: number };
        error.statusCode = context.statusCode;
        return error;
      },
    });
  }

  await installTokenVerification(app, options.auth);
  installMetrics(app, options.name);

  // Liveness stays 200 under pressure: restarting a busy instance would only move its load elsewhere.
  // Readiness answers 503 then, so the instance is taken out of rotation until it recovers.
  app.get('/healthz', { config: { rateLimit: false, pressureHandler: () => undefined } }, async () => ({
    status: 'ok',
  }));
  app.get('/readyz', { config: { rateLimit: false } }, async (request, reply) => {
    const results: Record<string, string> = {};
    let ready = true;
    for (const [name, check] of Object.entries(state.readinessChecks)) {
      try {
        await check();
        results[name] = 'ok';
      } catch (error) {
        ready = false;
        results[name] = 'failed';
        request.log.warn({ err: error, check: name }, 'readiness check failed');
      }
    }
    if (!ready) return reply.status(503).send({ status: 503, message: errorMessages[503], checks: results });
    return { status: 'ok', checks: results };
  });

  await app.register(swagger, { mode: 'static', specification: { document: options.openapi as any } });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });

  return app;
}

/**
 * Helmet's default security headers, computed once. They depend on nothing in the request, and
 * @fastify/helmet built every one of helmet's middlewares again for each request (about 5% of a tag
 * create's CPU).
 */
export function securityHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader(name: string, value: string) {
      headers[name.toLowerCase()] = value;
    },
    removeHeader() {},
  };
  helmet()({} as IncomingMessage, response as unknown as ServerResponse, () => {});
  return headers;
}

/** A request the router refused before any hook ran (a URL it cannot read): the error body all the same. */
function frameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400;
  void reply
    .status(status)
    .headers(securityHeaders())
    .header('x-request-id', request.id)
    .type('application/json; charset=utf-8')
    .send({ status, message: errorMessages[status as keyof typeof errorMessages] ?? errorMessages[400] });
}
