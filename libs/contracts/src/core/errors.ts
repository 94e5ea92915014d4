import { z } from 'zod';
import { errorMessages } from './error-messages.ts';

/** One field problem of a 422. `field` is the snake_case path (`name`, `tasks.0.title`). */
export const FieldError = z.object({ field: z.string(), message: z.string() });
export type FieldError = z.infer<typeof FieldError>;

/** The one error body every service answers with. */
export const ErrorBody = z.object({
  status: z.number().int(),
  message: z.string(),
  sub_code: z.string().optional(),
  errors: z.array(FieldError).optional(),
  request_id: z.string().optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

export {
  ipNotAllowedSubCode,
  ipNotAllowedMessage,
  errorMessages,
  permissionRequiredMessage,
} from './error-messages.ts';

/** An error a handler throws to answer with a given status; anything else thrown is a 500. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message?: string,
    readonly extra: { sub_code?: string; errors?: FieldError[] } = {},
  ) {
    super(message ?? errorMessages[status as keyof typeof errorMessages] ?? 'エラーが発生しました。');
  }
}

export const notFound = (message?: string) => new HttpError(404, message);
export const conflict = (message?: string) => new HttpError(409, message);
export const forbidden = (message?: string, subCode?: string) =>
  new HttpError(403, message, subCode ? { sub_code: subCode } : {});
export const unprocessable = (errors: FieldError[]) => new HttpError(422, undefined, { errors });
