import type { FastifyRequest } from 'fastify';
import { HttpError, findUnusableText, unusableCharacterMessage, type FieldError } from '@renkei/contracts';

/**
 * The one rule every request string passes before its endpoint's schema sees it (path parameters,
 * query and JSON body alike): no NUL or other control characters but tab and line breaks, no lone
 * surrogates (see `hasUnusableCharacter`). A path parameter that breaks it cannot name a record (404,
 * like any other parameter that fails its schema); the query or body answers 422 naming each field.
 */
export async function checkRequestText(request: FastifyRequest): Promise<void> {
  if (findUnusableText(request.params).length > 0) throw new HttpError(404);
  const errors: FieldError[] = [
    ...findUnusableText(request.query).map((path) => fieldError(path, 'query')),
    ...findUnusableText(request.body).map((path) => fieldError(path, 'body')),
  ];
  if (errors.length > 0) throw new HttpError(422, undefined, { errors });
}

function fieldError(path: (string | number)[], part: string): FieldError {
  return { field: path.length ? path.map(String).join('.') : part, message: unusableCharacterMessage };
}
