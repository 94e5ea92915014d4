// Plain values only (no zod): the web's entry chunk imports these through `@renkei/contracts/client`.
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
