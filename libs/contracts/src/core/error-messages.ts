// Plain values only (no zod): the web's entry chunk imports these through `@renkei/contracts/client`.
export const ipNotAllowedSubCode = 'IP_NOT_ALLOWED';
/** The message of that 403 (spec §6, the IP reading), from identity and from the gateway alike. */
export const ipNotAllowedMessage = '許可されたIPアドレス以外からのアクセスのため、ページを表示できません。';

/** A 403 for the caller's role (spec §6, the permission reading; the IP reading has its own sub_code). */
export const permissionRequiredMessage = 'ページを表示するには、アクセス権限が必要です。';

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
