import { z } from 'zod';
import { ja } from 'zod/locales';

/**
 * zod's own messages (wrong type, bad uuid …) in Japanese wherever these schemas validate: the services
 * answer them in 422 bodies and the web client shows them under form fields. Messages written in the
 * schemas take precedence.
 */
z.config({
  ...ja(),
  customError: (issue) => {
    if (issue.code !== 'invalid_type') return undefined;
    // A field left out: not the locale's 「stringが期待されましたが、undefinedが入力されました」.
    if (issue.input === undefined) return '入力してください';
    // A query parameter that is no number (`?page=abc` coerces to NaN): not 「…NaNが入力されました」.
    if (issue.expected === 'number' && Number.isNaN(issue.input)) return '数値で指定してください';
    return undefined;
  },
});
