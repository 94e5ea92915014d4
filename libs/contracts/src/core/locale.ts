import { z } from 'zod';
import { ja } from 'zod/locales';

/**
 * zod's own messages (wrong type, bad uuid …) in Japanese wherever these schemas validate: the services
 * answer them in 422 bodies and the web client shows them under form fields. Messages written in the
 * schemas take precedence.
 */
z.config({
  ...ja(),
  // A field left out: 「入力してください」 rather than the locale's 「stringが期待されましたが、undefinedが入力されました」.
  customError: (issue) => (issue.code === 'invalid_type' && issue.input === undefined ? '入力してください' : undefined),
});
