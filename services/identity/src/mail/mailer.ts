import { createMailTransport, startMailCatcher } from '@renkei/mail';
import type { IdentityConfig } from '../config.ts';

interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
  close(): Promise<void>;
}

/** SMTP_URL when set; else the in-process catcher (`pnpm ops mail` lists what it caught). */
export async function createMailer(config: IdentityConfig): Promise<Mailer> {
  const catcher = config.smtpUrl ? null : await startMailCatcher(config.dataDir, config.smtpCatcherPort);
  const transport = createMailTransport({ smtpUrl: config.smtpUrl, catcherPort: catcher?.port });
  return {
    async send(mail) {
      await transport.sendMail({ from: config.mailFrom, ...mail });
    },
    async close() {
      transport.close();
      await catcher?.close();
    },
  };
}
