import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ZodError } from 'zod';
import { HttpError, errorMessages, type ErrorBody, type FieldError } from '@renkei/contracts';
import { StreamNotFoundError, WrongExpectedRevisionError } from '@renkei/event-store';

const messageFor = (status: number): string =>
  status === 413
    ? '送信されたデータが大きすぎます。'
    : (errorMessages[status as keyof typeof errorMessages] ?? 'エラーが発生しました。');

/** `/tasks/0/title` → `tasks.0.title`; a root-level problem is named after its part (`body`). */
function fieldOf(instancePath: string | undefined, context: string | undefined): string {
  const path = (instancePath ?? '').replace(/^\//, '').split('/').filter(Boolean).join('.');
  return path || (context === 'querystring' ? 'query' : (context ?? 'body'));
}

export function zodFieldErrors(error: ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    field: issue.path.map(String).join('.') || 'body',
    message: issue.message,
  }));
}

/** What busboy (under @fastify/multipart) reports for a body it could not read to its end. */
const multipartParseError =
  /^(Unexpected end of multipart data|(Part|Field) terminated early due to unexpected end of multipart data|Multipart: Boundary not found)$/;

/**
 * SQLSTATEs meaning the database cannot take this request now, not that the request is wrong: class
 * 08 (the connection failed or broke), 53300 too_many_connections (the server's or the role's limit),
 * 57P01/57P02 (the server is shutting down or crashed) and 57P03 cannot_connect_now (starting up).
 */
const unavailableSqlStates = /^(08...|53300|57P0[123])$/;
/**
 * node-postgres and pg-pool errors without a SQLSTATE: the pool's acquire timeout, a dropped socket, a
 * server that refuses connections (restarting). Other socket codes are left out on purpose: a reset
 * may be the client's own connection.
 */
const unavailableDriverMessage =
  /^(timeout exceeded when trying to connect|Connection terminated (unexpectedly|due to connection timeout)|Client has encountered a connection error and is not queryable)$/;
const unavailableSocketCodes = new Set(['ECONNREFUSED']);

/**
 * Whether an error says the database is unavailable or overloaded; its `cause` chain is searched too,
 * for a layer that wraps the driver's error.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; typeof e === 'object' && e !== null && depth < 5; depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (unavailableSqlStates.test(code) || unavailableSocketCodes.has(code))) return true;
    if (typeof message === 'string' && unavailableDriverMessage.test(message)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** Seconds a client should wait before retrying an overloaded call: long enough for the pool to drain. */
const overloadRetryAfterSeconds = '5';

function isNamed(error: unknown, name: string): boolean {
  return typeof error === 'object' && error !== null && (error as Error).constructor?.name === name;
}

/**
 * The one error handler of every service: whatever is thrown ends as an `ErrorBody` with the right
 * status; a 500 carries the request id and nothing of the internals.
 */
export function errorHandler(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): void {
  // Every error names its request, so a user's screenshot or a support mail leads to the log lines.
  const send = (body: ErrorBody): void => {
    void reply
      .status(body.status)
      .type('application/json; charset=utf-8')
      .send({ ...body, request_id: request.id });
  };

  if (error instanceof HttpError || isNamed(error, 'HttpError')) {
    const e = error as HttpError;
    const body: ErrorBody = { status: e.status, message: e.message, ...e.extra };
    // A refused upload is worth tracing too (which file, which limit).
    if (e.status >= 500 || e.status === 413) body.request_id = request.id;
    return send(body);
  }

  const validation = (error as FastifyError).validation;
  if (Array.isArray(validation)) {
    const context = (error as FastifyError).validationContext;
    // A path parameter that cannot be an id cannot name an existing record.
    if (context === 'params') return send({ status: 404, message: messageFor(404) });
    const errors = validation.map((v) => ({
      field: fieldOf(v.instancePath, context),
      message: v.message ?? messageFor(422),
    }));
    return send({ status: 422, message: messageFor(422), errors });
  }

  if (error instanceof ZodError) {
    return send({ status: 422, message: messageFor(422), errors: zodFieldErrors(error) });
  }
  if (error instanceof WrongExpectedRevisionError || isNamed(error, 'WrongExpectedRevisionError')) {
    return send({ status: 409, message: messageFor(409) });
  }
  if (error instanceof StreamNotFoundError || isNamed(error, 'StreamNotFoundError')) {
    return send({ status: 404, message: messageFor(404) });
  }

  // A read model the worker has not created yet: not ready, rather than broken.
  if ((error as { code?: unknown }).code === '42P01') {
    request.log.warn({ err: error }, 'read model missing');
    void reply.header('retry-after', '1');
    return send({ status: 503, message: messageFor(503) });
  }

  // Out of connections (the server's limit, the pool's acquire timeout) or a database restarting:
  // overload, which the client may retry, never a 500 (docs/decisions.md, "Database overload is a 503").
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ err: error }, 'database unavailable');
    void reply.header('retry-after', overloadRetryAfterSeconds);
    return send({ status: 503, message: messageFor(503) });
  }

  // A multipart body the parser could not read (cut off, or a part never terminated): the client's.
  if (!(error as FastifyError).statusCode && multipartParseError.test((error as Error).message ?? '')) {
    return send({ status: 400, message: messageFor(400) });
  }

  const statusCode = (error as FastifyError).statusCode;
  // Framework and plugin errors (bad JSON, body too large, 429, 503) keep their status.
  if (statusCode && statusCode >= 400 && statusCode < 500) {
    if (statusCode === 429) reply.header('retry-after', reply.getHeader('retry-after') ?? '60');
    return send({
      status: statusCode,
      message: messageFor(statusCode),
      ...(statusCode === 413 ? { request_id: request.id } : {}),
    });
  }
  if (statusCode === 503) {
    // under-pressure sets its own Retry-After; other 503s get the overload default.
    void reply.header('retry-after', reply.getHeader('retry-after') ?? overloadRetryAfterSeconds);
    return send({ status: 503, message: messageFor(503) });
  }

  request.log.error({ err: error }, 'unhandled error');
  send({ status: 500, message: messageFor(500) });
}
