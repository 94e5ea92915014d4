import { z } from 'zod';
import { ja } from 'zod/locales';

/**
 * zod's own messages in Japanese wherever these schemas validate: the services answer them in 422 bodies and
 * the web client shows them under form fields. The locale's wording names types (「stringは5文字以下である必要が
 * あります」, 「intが期待されましたが…」), which a hospital's staff should never read, so the common issues are said
 * plainly here; the locale covers the rest. Messages written in the schemas take precedence.
 */
z.config({
  ...ja(),
  customError: (issue) => {
    switch (issue.code) {
      case 'invalid_type':
        // A field left out: not the locale's 「stringが期待されましたが、undefinedが入力されました」.
        if (issue.input === undefined) return '入力してください';
        // A query parameter that is no number (`?page=abc` coerces to NaN): not 「…NaNが入力されました」.
        if (issue.expected === 'number' && Number.isNaN(issue.input)) return '数値で指定してください';
        return typeMessages[issue.expected];
      case 'too_small':
        return sizeMessage(issue.origin, issue.minimum, issue.inclusive !== false, 'min', issue.exact === true);
      case 'too_big':
        return sizeMessage(issue.origin, issue.maximum, issue.inclusive !== false, 'max', issue.exact === true);
      case 'invalid_format':
        return formatMessages[issue.format];
      case 'invalid_value':
        // An enum's values are codes (visit, LOW…): a client sends them, a person picks from a list.
        return `次のいずれかを指定してください: ${issue.values.map((v) => String(v)).join('、')}`;
      default:
        return undefined;
    }
  },
});

const typeMessages: Partial<Record<string, string>> = {
  string: '文字列で指定してください',
  number: '数値で指定してください',
  int: '整数で指定してください',
  boolean: 'true か false で指定してください',
  array: '一覧（配列）で指定してください',
  object: '項目の組（オブジェクト）で指定してください',
  date: '日付で指定してください',
};

const formatMessages: Partial<Record<string, string>> = {
  email: 'メールアドレスの形式で入力してください',
  uuid: 'IDの形式が正しくありません',
  guid: 'IDの形式が正しくありません',
  date: '日付はYYYY-MM-DD形式で入力してください',
  datetime: '日時の形式が正しくありません',
  time: '時刻はHH:MM形式で入力してください',
  url: 'URLの形式で入力してください',
};

function sizeMessage(
  origin: string,
  bound: number | bigint | Date,
  inclusive: boolean,
  side: 'min' | 'max',
  exact: boolean,
): string | undefined {
  const n = bound instanceof Date ? bound.toISOString().slice(0, 10) : String(bound);
  switch (origin) {
    case 'string':
      if (exact) return `${n}文字で入力してください`;
      if (side === 'min') return bound === 1 && inclusive ? '入力してください' : `${n}文字以上で入力してください`;
      return `${n}文字以内で入力してください`;
    case 'number':
    case 'int':
    case 'bigint':
      if (side === 'min') return inclusive ? `${n}以上で指定してください` : `${n}より大きい値を指定してください`;
      return inclusive ? `${n}以下で指定してください` : `${n}より小さい値を指定してください`;
    case 'array':
    case 'set':
      if (exact) return `${n}件で指定してください`;
      if (side === 'min') return bound === 1 && inclusive ? '1件以上指定してください' : `${n}件以上指定してください`;
      return `${n}件以内で指定してください`;
    case 'date':
      return side === 'min' ? `${n}以降の日付を指定してください` : `${n}以前の日付を指定してください`;
    case 'file':
      return side === 'min' ? undefined : `ファイルが大きすぎます（${n}バイトまで）`;
    default:
      return undefined;
  }
}
