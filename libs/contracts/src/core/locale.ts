import { z } from 'zod';
import { ja } from 'zod/locales';

/**
 * zod's own messages (wrong type, bad uuid …) in Japanese wherever these schemas validate: the services
 * answer them in 422 bodies and the web client shows them under form fields. Messages written in the
 * schemas take precedence.
 */
z.config(ja());
