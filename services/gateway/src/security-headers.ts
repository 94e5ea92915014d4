import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  errorMessages,
  hasSurrogateEscape,
  providerPagesCsp,
  repairPercentEscapes,
  type ErrorBody,
} from '@renkei/contracts';

const common = {
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/**
 * The SPA's policy. Scripts only from files of this origin (the Vite build has no inline script);
 * styles also inline, because Mantine writes its CSS variables and component styles into style
 * elements and attributes at run time. connect-src, img-src and frame-src also allow https: since the
 * identity provider (Azure AD B2C in production, its silent-renewal iframe), error reporting and map
 * tiles are configured per install and may live on other hosts; workers from blob: for the map.
 */
function appPolicy(frameAncestors: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: https:",
    "font-src 'self' data:",
    "connect-src 'self' https:",
    "worker-src 'self' blob:",
    "frame-src 'self' https:",
    "object-src 'none'",
    "base-uri 'self'",
    `frame-ancestors ${frameAncestors}`,
  ].join('; ');
}

const spa = { ...common, 'content-security-policy': appPolicy("'none'"), 'x-frame-options': 'DENY' };
// MSAL renews tokens in a hidden iframe of this origin: /oidc/auth, then the redirect bridge page.
const framedBySelf = { ...common, 'x-frame-options': 'SAMEORIGIN' };
const bridge = { ...framedBySelf, 'content-security-policy': appPolicy("'self'") };
const provider = { ...framedBySelf, 'content-security-policy': providerPagesCsp };

function headersFor(url: string): Record<string, string> {
  if (url.startsWith('/oidc/') || url === '/oidc' || url.startsWith('/oidc?')) return provider;
  if (url.startsWith('/app/auth/redirect')) return bridge;
  return spa;
}

/**
 * The URL with malformed escapes of its query string read as text (`?page=%ZZ` → `%25ZZ`): the proxy
 * would fail decoding it with a 500, while the owning service answers it with its own error body. A
 * malformed path stays as it is and is refused by `frameworkError`.
 */
export function repairQueryEscapes(url: string): string {
  const query = url.indexOf('?');
  // The proxy decodes the URL it forwards strictly: a surrogate escape is repaired to text here, after
  // the /api route has refused it from the original URL (`surrogateQueryKeys`).
  return query < 0 ? url : url.slice(0, query) + repairPercentEscapes(url.slice(query), { keepSurrogates: false });
}

/** The keys (before any `[`) of the query pairs of `url` that carry a lone surrogate as UTF-8 bytes. */
export function surrogateQueryKeys(url: string): string[] {
  const query = url.indexOf('?');
  if (query < 0) return [];
  return url
    .slice(query + 1)
    .split('&')
    .filter((pair) => hasSurrogateEscape(pair))
    .map((pair) => {
      const rawKey = pair.split('=')[0]!;
      let key = rawKey;
      try {
        key = decodeURIComponent(rawKey);
      } catch {
        // A key that is itself malformed names nothing an endpoint reads.
      }
      return key.split('[')[0]!;
    });
}

/** A URL the router cannot decode: 400 in the error body, with the edge's headers. */
export function frameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400;
  const body: ErrorBody = {
    status,
    message: errorMessages[status as keyof typeof errorMessages] ?? errorMessages[400],
    request_id: request.id,
  };
  void reply
    .headers({ ...headersFor(request.url), 'x-request-id': request.id })
    .status(status)
    .type('application/json; charset=utf-8')
    .send(body);
}

/**
 * Security headers on everything the gateway answers: the web build, its own redirects and error
 * bodies, and proxied answers (a header the upstream set itself, such as the provider's CSP of its
 * logout page, is kept). Also the gateway's error handler, so no framework default body, stack or
 * upstream detail leaves the edge.
 */
export function installSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    for (const [name, value] of Object.entries(headersFor(request.url))) {
      if (!reply.hasHeader(name)) void reply.header(name, value);
    }
    if (!reply.hasHeader('x-request-id')) void reply.header('x-request-id', request.id);
    return payload;
  });
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: error }, 'gateway error');
    const body: ErrorBody = {
      status,
      message: errorMessages[status as keyof typeof errorMessages] ?? errorMessages[400],
      request_id: request.id,
    };
    void reply.status(status).type('application/json; charset=utf-8').send(body);
  });
}

/** The keys (before any `[`) of the query pairs of `url` that carry a malformed escape. */
export function malformedQueryKeys(url: string): string[] {
  const query = url.indexOf('?');
  if (query < 0) return [];
  return url
    .slice(query + 1)
    .split('&')
    .filter((pair) => repairPercentEscapes(pair) !== pair)
    .map((pair) => {
      const rawKey = pair.split('=')[0]!;
      let key = rawKey;
      try {
        key = decodeURIComponent(rawKey);
      } catch {
        // A key that is itself malformed names nothing an endpoint reads.
      }
      return key.split('[')[0]!;
    });
}
