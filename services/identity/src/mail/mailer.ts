import fs from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { simpleParser } from 'mailparser';
import type { IdentityConfig } from '../config.ts';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
  close(): Promise<void>;
}

export function mailDir(dataDir: string): string {
  return path.join(dataDir, 'mail');
}

/**
 * The default install's SMTP catcher: accepts every mail on 127.0.0.1 and keeps it as an .eml file
 * under `<dataDir>/mail`, so `pnpm ops mail` can show password-reset links without a mail server.
 */
async function startMailCatcher(dataDir: string, port: number): Promise<{ port: number; close(): Promise<void> }> {
  const dir = mailDir(dataDir);
  await fs.mkdir(dir, { recursive: true });
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', callback);
      stream.on('end', () => {
        const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}.eml`;
        fs.writeFile(path.join(dir, name), Buffer.concat(chunks)).then(
          () => callback(),
          (error: Error) => callback(error),
        );
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = (server as unknown as { server: { address(): AddressInfo } }).server.address();
  return {
    port: address.port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export async function createMailer(config: IdentityConfig): Promise<Mailer> {
  if (config.smtpUrl) {
    const transport = nodemailer.createTransport(config.smtpUrl);
    return {
      async send(mail) {
        await transport.sendMail({ from: config.mailFrom, ...mail });
      },
      async close() {
        transport.close();
      },
    };
  }
  const catcher = await startMailCatcher(config.dataDir, config.smtpCatcherPort);
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: catcher.port,
    secure: false,
    ignoreTLS: true,
  });
  return {
    async send(mail) {
      await transport.sendMail({ from: config.mailFrom, ...mail });
    },
    async close() {
      transport.close();
      await catcher.close();
    },
  };
}

export interface StoredMail {
  file: string;
  date: string | null;
  from: string;
  to: string;
  subject: string;
  text: string;
}

/** Mails kept by the local catcher, oldest first. */
export async function listMails(dataDir: string): Promise<StoredMail[]> {
  const dir = mailDir(dataDir);
  let files: string[];
  try {
    files = (await fs.readdir(dir)).filter((f) => f.endsWith('.eml')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const mails: StoredMail[] = [];
  for (const file of files) {
    const parsed = await simpleParser(await fs.readFile(path.join(dir, file)));
    const to = Array.isArray(parsed.to) ? parsed.to.map((a) => a.text).join(', ') : (parsed.to?.text ?? '');
    mails.push({
      file: path.join(dir, file),
      date: parsed.date ? parsed.date.toISOString() : null,
      from: parsed.from?.text ?? '',
      to,
      subject: parsed.subject ?? '',
      text: parsed.text ?? '',
    });
  }
  return mails;
}
