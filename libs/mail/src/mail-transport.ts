import nodemailer, { type Transporter } from 'nodemailer';

export type MailTransport = Transporter;
import { localCatcherAddress } from './mail-catcher.ts';

/**
 * The SMTP transport every sender of Renkei uses: `smtpUrl` (SMTP_URL) when set (production;
 * `?pool=true` on the URL pools its connections), else the local catcher: `catcherPort` when given,
 * else the catcher this process runs, else `fallbackPort` (SMTP_PORT) on 127.0.0.1.
 */
export function createMailTransport(
  options: {
    smtpUrl?: string | undefined;
    pool?: boolean;
    catcherPort?: number | undefined;
    fallbackPort?: number;
    /** Pooled connections (default 5). */
    maxConnections?: number;
  } = {},
): Transporter {
  if (options.smtpUrl) return nodemailer.createTransport(options.smtpUrl);
  return nodemailer.createTransport({
    ...localCatcherAddress(options.fallbackPort ?? 2525),
    ...(options.catcherPort ? { port: options.catcherPort } : {}),
    secure: false,
    ignoreTLS: true,
    ...(options.pool ? { pool: true, maxConnections: options.maxConnections ?? 5 } : {}),
  });
}
