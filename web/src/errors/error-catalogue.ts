import { ipNotAllowedSubCode } from '@renkei/contracts/client';
import { networkSubCode } from '../api/api-errors.ts';

export type ErrorStatus = 401 | 403 | 404 | 429 | 500 | 503;

export interface ErrorDescription {
  status: ErrorStatus;
  summary: string;
  description: string;
}

const contactAdmin = '詳しくは、本サービスの管理者にお問い合わせください。';

/** Spec §8: recognised statuses; 400 and anything unknown show as 500. */
export function normalizeStatus(status: number): ErrorStatus {
  return status === 401 || status === 403 || status === 404 || status === 429 || status === 503 ? status : 500;
}

export function describeError(status: number, subCode?: string): ErrorDescription {
  const s = normalizeStatus(status);
  switch (s) {
    case 401:
      return {
        status: s,
        summary: '指定されたページは表示できません',
        description: 'ページを表示するには、認証が必要です。もう一度ログインしてください。',
      };
    case 403:
      return {
        status: s,
        summary: '指定されたページは表示できません',
        description:
          subCode === ipNotAllowedSubCode
            ? `許可されたIPアドレス以外からのアクセスのため、ページを表示できません。${contactAdmin}`
            : `ページを表示するには、アクセス権限が必要です。${contactAdmin}`,
      };
    case 404:
      return {
        status: s,
        summary: 'ページが見つかりません',
        description: 'URLが間違っているか、ページが削除された可能性があります。',
      };
    case 429:
    case 503:
      return {
        status: s,
        summary: 'ただいまページにアクセスしにくい状態です',
        description: '時間をおいてから、再度アクセスしてください。',
      };
    case 500:
      // No answer at all (offline, the server unreachable) is no server fault: nothing was reported, and the
      // user can do something about it.
      return subCode === networkSubCode
        ? {
            status: s,
            summary: '通信できませんでした',
            description:
              'インターネットに接続されていないか、サーバーに届きませんでした。電波の届く場所で、もう一度お試しください。',
          }
        : {
            status: s,
            summary: '一時的なエラーが発生しました',
            description: '管理者に通知されました。復旧までしばらくお待ちください。',
          };
    default: {
      const never: never = s;
      return never;
    }
  }
}

/** The toast for an unhandled error that is neither an auth, permission nor server problem. */
export const somethingWentWrong = '問題が発生しました。もう一度お試しください。';
/** The toast for a call that got no answer at all (offline, the server unreachable). */
export const couldNotConnect = '通信できませんでした。接続を確認して、もう一度お試しください。';
export const logoutFailed = 'ログアウトに失敗しました';
