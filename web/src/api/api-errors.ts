import type { FieldError } from '@renkei/contracts';

/** A call answered with a status outside 200–299, or failed before any answer (then status 500). */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    message: string,
    readonly subCode: string | undefined = undefined,
    readonly errors: FieldError[] = [],
  ) {
    super(message);
  }
}

/** A call was made without a path id or body it needs (spec §5); raised before any request. */
export class RequiredParameterError extends Error {
  override readonly name = 'RequiredParameterError';
  constructor(readonly parameter: string) {
    super(`必須パラメータ「${parameter}」が指定されていません`);
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

/** Field errors of a 422 as a `{ field: message }` map for forms. */
export function fieldErrorsOf(error: unknown): Record<string, string> {
  if (!isApiError(error) || error.status !== 422) return {};
  const out: Record<string, string> = {};
  for (const e of error.errors) out[e.field] ??= e.message;
  return out;
}

/** What a call that never got an answer (no network, the server unreachable) carries as its sub-code. */
export const networkSubCode = 'NETWORK';

/** The request got no answer at all: whatever it was meant to do may be tried again unchanged. */
export const isNetworkError = (error: unknown): boolean =>
  error instanceof ApiError && error.subCode === networkSubCode;
