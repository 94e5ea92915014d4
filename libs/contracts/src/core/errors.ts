import { z } from 'zod';

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

export const ipNotAllowedSubCode = 'IP_NOT_ALLOWED';

export const errorMessages = {
  400: 'リクエストが正しくありません。',
  401: '認証が必要です。',
  403: 'アクセス権限がありません。',
  404: '指定されたデータが見つかりません。',
  409: '他の操作と競合しました。最新の状態を読み込んでからやり直してください。',
  422: '入力内容に誤りがあります。',
  429: 'リクエストが多すぎます。しばらくしてから再度お試しください。',
  500: '一時的なエラーが発生しました。',
  503: 'ただいまアクセスが集中しています。しばらくしてから再度お試しください。',
} as const;

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
