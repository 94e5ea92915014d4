import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import {
  HttpError,
  errorMessages,
  forbidden,
  minPositionHeader,
  permissionRequiredMessage,
  repairPercentEscapes,
  toRoutePath,
  type BodyOf,
  type EndpointContract,
  type ParamsOf,
  type QueryOf,
  type ResponseOf,
} from '@renkei/contracts';
import { parsePosition } from '@renkei/event-store';
import { bearerToken, verifyAccessToken, TokenRejectedError, type AuthContext } from './auth.ts';
import { checkRequestText } from './input-rules.ts';
import { matrixAllows } from './roles.ts';

export interface HandlerContext<E extends EndpointContract> {
  params: ParamsOf<E>;
  query: QueryOf<E>;
  body: BodyOf<E>;
  auth: AuthContext;
  request: FastifyRequest;
  reply: FastifyReply;
}

export type EndpointHandler<E extends EndpointContract> = (ctx: HandlerContext<E>) => Promise<ResponseOf<E>>;

export interface EndpointOptions {
  /** Projections this endpoint reads: `X-Min-Position` waits for these before the handler runs. */
  reads?: readonly string[];
}

/**
 * Serves one registry entry: method and `/api` path from the contract, token verified (401), feature
 * and owner checks (403), the text rule of `checkRequestText`, params/query/body validated by the
 * contract's schemas (422), the response
 * serialised by its schema with its success status.
 */
export function registerEndpoint<E extends EndpointContract>(
  app: FastifyInstance,
  contract: E,
  handler: EndpointHandler<E>,
  options: EndpointOptions = {},
): void {
  const kit = app.serviceKit;
  if (kit.served.includes(contract.id)) throw new Error(`Endpoint ${contract.id} registered twice`);
  kit.served.push(contract.id);

  const schema: FastifySchema = {};
  if (contract.params) schema.params = contract.params;
  if (contract.query) schema.querystring = contract.query;
  if (contract.body) schema.body = contract.body;
  // A download streams its file as the handler produces it: there is no JSON to serialise.
  if (contract.successStatus !== 204 && !contract.download) {
    schema.response = { [contract.successStatus]: contract.response };
  }

  app.route({
    method: contract.method,
    url: `/api${toRoutePath(contract.path)}`,
    schema,
    // Authentication and permission run after rate limiting and before the body is parsed or
    // validated: an anonymous caller learns nothing and uploads nothing.
    preParsing: async (request) => {
      const token = bearerToken(request.headers.authorization);
      if (!token) throw new HttpError(401);
      try {
        request.auth = await verifyAccessToken(request, token, kit.auth, kit.revocations);
      } catch (error) {
        if (error instanceof TokenRejectedError) {
          request.log.info({ reason: error.message }, 'access token rejected');
          throw new HttpError(401);
        }
        throw error;
      }
      if (contract.feature && !request.auth.features.includes(contract.feature)) throw forbidden();
      if (!matrixAllows(contract, request.auth)) throw forbidden(permissionRequiredMessage);
    },
    // After authentication and before the contract's schemas: no endpoint can forget the text rule.
    preValidation: async (request) => {
      // A query the endpoint has no schema for is ignored, but not a URL that cannot be read at all.
      if (!contract.query) refuseMalformedQuery(request);
      await checkRequestText(request);
    },
    preHandler: async (request) => {
      const header = request.headers[minPositionHeader];
      if (header === undefined || !options.reads?.length) return;
      const position = parsePosition(Array.isArray(header) ? header[0]! : header);
      if (!position) {
        throw new HttpError(422, undefined, {
          errors: [{ field: minPositionHeader, message: '位置の形式が正しくありません。' }],
        });
      }
      if (!kit.waitForPosition) throw new Error(`${kit.name}: X-Min-Position needs waitForPosition`);
      const reached = await kit.waitForPosition(options.reads, position, kit.minPositionTimeoutMs);
      // Answering with data that may not contain the caller's own write would break read-your-writes.
      if (!reached) throw new HttpError(503, errorMessages[503]);
    },
    handler: async (request, reply) => {
      const result = await handler({
        params: request.params as ParamsOf<E>,
        query: request.query as QueryOf<E>,
        body: request.body as BodyOf<E>,
        auth: request.auth!,
        request,
        reply,
      });
      void reply.status(contract.successStatus);
      if (contract.successStatus === 204) return reply.send();
      return result;
    },
  });
}

/**
 * A malformed percent-escape in the query (`%ZZ`, a UTF-8 sequence cut short) is read as literal text
 * so that a query schema can name the field (422); an endpoint without one answers 400 instead.
 */
function refuseMalformedQuery(request: FastifyRequest): void {
  const url = request.originalUrl;
  const at = url.indexOf('?');
  if (at >= 0 && repairPercentEscapes(url.slice(at)) !== url.slice(at)) throw new HttpError(400);
}
