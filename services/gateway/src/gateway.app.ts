import fs from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import replyFrom from '@fastify/reply-from';
import fastifyStatic from '@fastify/static';
import {
  dataUploadMaxBytes,
  endpoints,
  errorMessages,
  multipartFramingBytes,
  unusableCharacterMessage,
  ipNotAllowedMessage,
  ipNotAllowedSubCode,
  type EndpointContract,
  type ErrorBody,
  type OwningService,
} from '@renkei/contracts';
import { buildRouteTable } from './route-table.ts';
import { tenantOfBearer, type IpAllowListSource } from './ip-allow-lists.ts';
import {
  frameworkError,
  installSecurityHeaders,
  malformedQueryKeys,
  repairQueryEscapes,
  surrogateQueryKeys,
} from './security-headers.ts';

export interface GatewayOptions {
  /** PEM key and certificate of the https origin. */
  tls: { key: string | Buffer; cert: string | Buffer };
  /** Base URLs (`http://127.0.0.1:4101`) of the services behind the gateway. */
  upstreams: Record<OwningService, string>;
  /** Directory of the web build (`web/dist`), served at /app. */
  webDist: string;
  /** Contract registry to route by (defaults to the real one; tests pass their own). */
  registry?: readonly EndpointContract[];
  /**
   * Trust `X-Forwarded-*` from a proxy in front (an ingress). Without it the gateway is the edge and
   * the client IP is the socket's address, whatever the request claims.
   */
  trustProxy?: FastifyServerOptions['trustProxy'];
  /** A pino/Fastify logger instance, logger options, or false (default). */
  logger?: FastifyServerOptions['logger'] | FastifyBaseLogger;
  /**
   * Largest declared body (Content-Length) let through: `json` for every body but multipart (the
   * services' own limit, 1 MiB), `upload` for multipart (the largest import type with room for the
   * multipart framing; each import route enforces its own limit while streaming), and `uploadByEndpoint`
   * for the multipart endpoints that take more (the DPC files of POST /data_uploads), by contract id.
   */
  bodyLimits?: { json?: number; upload?: number; uploadByEndpoint?: Record<string, number> };
  /**
   * The tenants' IP allow-lists (`followIpAllowLists`): a call to command or query with a token of a
   * tenant whose list excludes the client address answers 403 IP_NOT_ALLOWED here (identity checks
   * its own calls). Absent: no check at the gateway.
   */
  ipAllowLists?: IpAllowListSource;
}

const defaultBodyLimits = {
  json: 1024 * 1024,
  upload: 100 * 1024 * 1024,
  uploadByEndpoint: {
    [endpoints.createDataUpload.id]: Math.max(...Object.values(dataUploadMaxBytes)) + multipartFramingBytes,
  } as Record<string, number>,
};

// `expect` too: the gateway answers 100 Continue itself, and undici refuses a request that carries it.
const hopByHop = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'expect',
];

/**
 * The public https origin: `/app/*` the web build (SPA fallback), `/oidc/*` the identity service's
 * OpenID provider (Host preserved so issuer URLs and cookies stay on this origin), `/api/*` the
 * owning service of each contract entry.
 */
export async function buildGatewayApp(options: GatewayOptions): Promise<FastifyInstance> {
  const routes = buildRouteTable(options.registry);
  const webDist = path.resolve(options.webDist);
  const app = Fastify({
    https: { key: options.tls.key, cert: options.tls.cert },
    trustProxy: options.trustProxy ?? false,
    ...(isLoggerInstance(options.logger) ? { loggerInstance: options.logger } : { logger: options.logger ?? false }),
    requestIdHeader: 'x-request-id',
    // Uploads stream through untouched; the owning service enforces its own limits.
    bodyLimit: Number.MAX_SAFE_INTEGER,
    // Japanese file names and search terms arrive percent-encoded; keep long URLs working.
    routerOptions: { maxParamLength: 1000 },
    rewriteUrl: (request) => repairQueryEscapes(request.url ?? '/'),
    frameworkErrors: frameworkError,
  });
  installSecurityHeaders(app);

  const limits = {
    json: options.bodyLimits?.json ?? defaultBodyLimits.json,
    upload: options.bodyLimits?.upload ?? defaultBodyLimits.upload,
    uploadByEndpoint: options.bodyLimits?.uploadByEndpoint ?? defaultBodyLimits.uploadByEndpoint,
  };
  /** The declared body is larger than anything behind this path accepts. */
  const declaredTooLarge = (method: string | undefined, url: string | undefined, headers: IncomingHttpHeaders) => {
    const length = Number(headers['content-length'] ?? 0);
    if (!Number.isFinite(length) || length <= 0) return false;
    if (!/^multipart\//i.test(headers['content-type'] ?? '')) return length > limits.json;
    const endpointId = method && url ? routes.lookup(method, url)?.endpointId : undefined;
    return length > ((endpointId && limits.uploadByEndpoint[endpointId]) || limits.upload);
  };
  // A client that waits for 100 Continue is refused on its headers alone, before it sends the body;
  // otherwise it is told to go on and the request takes its normal course.
  app.server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (declaredTooLarge(req.method, req.url, req.headers)) {
      const id = typeof req.headers['x-request-id'] === 'string' ? req.headers['x-request-id'] : randomUUID();
      res.writeHead(413, {
        'content-type': 'application/json; charset=utf-8',
        connection: 'close',
        'x-request-id': id,
      });
      res.end(JSON.stringify(errorBody(413, id)));
      return;
    }
    res.writeContinue();
    app.server.emit('request', req, res);
  });
  app.addHook('onRequest', async (request, reply) => {
    if (request.url.startsWith('/api/') && declaredTooLarge(request.method, request.url, request.headers)) {
      // The body is not read: the connection closes after the answer.
      void reply.header('connection', 'close').code(413).send(errorBody(413, request.id));
      return reply;
    }
  });

  const forwardedHeaders = (request: FastifyRequest<any, any, any>, headers: Record<string, any>): any => {
    for (const h of hopByHop) delete headers[h];
    const host = request.headers.host;
    if (host) headers.host = host;
    headers['x-forwarded-host'] = host ?? '';
    headers['x-forwarded-proto'] = options.trustProxy ? request.protocol : 'https';
    headers['x-forwarded-for'] = request.ip;
    headers['x-request-id'] = request.id;
    return headers;
  };

  const upstreamError = (
    reply: FastifyReply<any, any, any, any>,
    { error }: { error: Error & { statusCode?: number } },
  ) => {
    const status = error.statusCode && error.statusCode >= 500 ? 503 : 502;
    reply.request.log.warn({ err: error }, 'upstream unavailable');
    void reply.code(status).send(errorBody(status, reply.request.id));
  };

  await app.register(async (proxy) => {
    await proxy.register(replyFrom, { undici: { headersTimeout: 600_000, bodyTimeout: 600_000 } });
    // Uploads (multipart) pass through as streams, never buffered whole. Other bodies are read here up
    // to the JSON limit, so one over it is a 413 from the gateway: a service refusing a chunked body
    // half-way closes the connection under the proxy, which reached the client as a 503.
    proxy.removeAllContentTypeParsers();
    proxy.addContentTypeParser(/^multipart\//i, (_request, payload, done) => done(null, payload));
    proxy.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: limits.json }, (_request, body, done) =>
      done(null, Readable.from([body])),
    );
    proxy.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
      const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
      if (status === 500) request.log.error({ err: error }, 'gateway error');
      void reply.code(status).send(errorBody(status, request.id));
    });

    const toService = (service: OwningService) => (request: FastifyRequest, reply: FastifyReply) =>
      reply.from(`${options.upstreams[service].replace(/\/$/, '')}${request.url}`, {
        rewriteRequestHeaders: forwardedHeaders,
        onError: upstreamError,
      });

    proxy.all('/oidc', toService('identity'));
    proxy.all('/oidc/*', toService('identity'));
    // Campaign mails' open pixel, click redirect and unsubscribe page: public, answered by command.
    proxy.all('/t/*', toService('command'));
    // Signed links to uploaded files (an <img> cannot send the token): answered by query.
    proxy.get('/files/*', toService('query'));
    proxy.all('/api/*', (request, reply) => {
      const match = routes.lookup(request.method, request.url);
      if (!match) return reply.code(404).send(errorBody(404, request.id));
      // A malformed escape in the query reaches the service as text (the proxy cannot forward it as
      // sent), where the query schema names its field (422); in a key the endpoint does not read it
      // would be ignored: the malformed URL is a 400 instead.
      if (
        request.url !== request.originalUrl &&
        malformedQueryKeys(request.originalUrl).some((k) => !match.readsQueryKey(k))
      )
        return reply.code(400).send(errorBody(400, request.id));
      // A lone surrogate sent as the UTF-8 bytes of its code unit cannot be forwarded as sent (the
      // proxy decodes strictly): refused here as the service's string rule would (422 naming the key).
      const surrogates = request.url !== request.originalUrl ? surrogateQueryKeys(request.originalUrl) : [];
      if (surrogates.some((k) => !match.readsQueryKey(k))) return reply.code(400).send(errorBody(400, request.id));
      if (surrogates.length > 0)
        return reply.code(422).send({
          ...errorBody(422, request.id),
          errors: [...new Set(surrogates)].map((field) => ({ field, message: unusableCharacterMessage })),
        });
      const tenantId = match.service === 'identity' ? undefined : tenantOfBearer(request.headers.authorization);
      if (options.ipAllowLists && tenantId) {
        // request.ip is the socket's address, or X-Forwarded-For's only under trustProxy: a client
        // cannot choose the address it is checked by.
        const allowed = options.ipAllowLists.allows(tenantId, request.ip);
        if (allowed === undefined) return reply.code(503).send(errorBody(503, request.id));
        if (!allowed) {
          return reply.code(403).send({
            status: 403,
            message: ipNotAllowedMessage,
            sub_code: ipNotAllowedSubCode,
            request_id: request.id,
          } satisfies ErrorBody);
        }
      }
      return toService(match.service)(request, reply);
    });
  });

  await app.register(fastifyStatic, {
    root: webDist,
    prefix: '/app/',
    wildcard: true,
    index: ['index.html'],
    redirect: false,
    // The web build writes .br and .gz beside its text files (web/src/build/precompress.vite.ts): sent as they
    // are to a browser that accepts them, with Vary: Accept-Encoding; the plain file otherwise.
    preCompressed: true,
    // Vite puts content hashes in asset names; everything else must revalidate.
    setHeaders(res, filePath) {
      const immutable = filePath.startsWith(path.join(webDist, 'assets') + path.sep);
      res.header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });

  app.get('/', (_request, reply) => reply.redirect('/app/'));
  app.get('/app', (_request, reply) => reply.redirect('/app/'));
  app.get('/healthz', () => ({ status: 'ok' }));

  app.setNotFoundHandler((request, reply) => {
    let pathname: string;
    try {
      pathname = decodeURIComponent(request.url.split('?')[0] ?? '');
    } catch {
      return reply.code(404).send(errorBody(404, request.id));
    }
    if ((request.method === 'GET' || request.method === 'HEAD') && pathname.startsWith('/app/')) {
      return sendAppPage(webDist, pathname.slice('/app/'.length), reply);
    }
    return reply.code(404).send(errorBody(404, request.id));
  });

  return app;
}

/**
 * A path without a file: a directory of its own with an index.html (the sign-in redirect bridge page
 * at /app/auth/redirect must NOT get the whole SPA) or else the SPA's index.html, whose router takes
 * it from there. A path that looks like a file (has an extension) is a real 404.
 */
function sendAppPage(webDist: string, relative: string, reply: FastifyReply) {
  const target = path.resolve(webDist, relative);
  if (target !== webDist && !target.startsWith(webDist + path.sep)) {
    return reply.code(404).send(errorBody(404, reply.request.id));
  }
  if (fs.existsSync(path.join(target, 'index.html'))) {
    return reply.header('cache-control', 'no-cache').sendFile(path.relative(webDist, path.join(target, 'index.html')));
  }
  if (path.extname(relative) !== '') return reply.code(404).send(errorBody(404, reply.request.id));
  if (!fs.existsSync(path.join(webDist, 'index.html'))) {
    return reply
      .code(503)
      .type('text/html; charset=utf-8')
      .send(
        '<!doctype html><html lang="ja"><meta charset="utf-8"><title>Renkei</title>' +
          '<p>画面がまだビルドされていません。<code>pnpm --filter @renkei/web build</code> を実行してください。</p></html>',
      );
  }
  return reply.header('cache-control', 'no-cache').sendFile('index.html');
}

function isLoggerInstance(logger: GatewayOptions['logger']): logger is FastifyBaseLogger {
  return typeof logger === 'object' && logger !== null && typeof (logger as FastifyBaseLogger).child === 'function';
}

function errorBody(status: number, requestId: string): ErrorBody {
  const message =
    status === 502
      ? 'サービスに接続できません。しばらくしてから再度お試しください。'
      : status === 413
        ? '送信されたデータが大きすぎます。'
        : (errorMessages[status as keyof typeof errorMessages] ?? 'エラーが発生しました。');
  return { status, message, request_id: requestId };
}
