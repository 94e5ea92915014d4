import fs from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { simpleParser } from 'mailparser';
import { isVerpAddress } from './bounce.ts';

function mailDir(dataDir: string): string {
  return path.join(dataDir, 'mail');
}

/**
 * The bounce mailbox: one .eml per bounce, its VERP address in a Delivered-To header. The catcher
 * files there what is sent to a VERP address; in production an MTA delivering the bounce address to
 * this directory does the same (docs/decisions.md, "Bounces").
 */
export function bounceMailboxDir(dataDir: string): string {
  return path.join(mailDir(dataDir), 'bounces');
}

/** The port of the catcher this process runs, if any: senders in the same process (the embedded install's worker) use it. */
let localCatcherPort: number | null = null;

/** Where a sender without SMTP_URL delivers: this process's catcher, else `port` on 127.0.0.1 (SMTP_PORT). */
export function localCatcherAddress(port: number): { host: string; port: number } {
  return { host: '127.0.0.1', port: localCatcherPort ?? port };
}

/**
 * The default install's SMTP catcher: accepts every mail on 127.0.0.1 and keeps it as an .eml file
 * under `<dataDir>/mail`, so `pnpm ops mail` can show password-reset links and campaign mails
 * without a mail server.
 */
export async function startMailCatcher(
  dataDir: string,
  port: number,
): Promise<{ port: number; close(): Promise<void> }> {
  const dir = mailDir(dataDir);
  const bounces = bounceMailboxDir(dataDir);
  await fs.mkdir(bounces, { recursive: true });
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    // Campaigns are sent over pooled connections, several at once.
    maxClients: 100,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', callback);
      stream.on('end', () => {
        const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}.eml`;
        const verp = session.envelope.rcptTo.map((r) => r.address).filter(isVerpAddress);
        // A bounce (mail to a campaign's VERP return path) goes to the bounce mailbox, its
        // envelope recipient written down as a receiving MTA does.
        const file =
          verp.length > 0
            ? fs.writeFile(
                path.join(bounces, name),
                Buffer.concat([Buffer.from(verp.map((a) => `Delivered-To: ${a}\r\n`).join('')), ...chunks]),
              )
            : fs.writeFile(
                path.join(dir, name),
                // The envelope sender, as the last MTA records it: where a bounce of this mail would go.
                Buffer.concat([
                  Buffer.from(`Return-Path: <${envelopeSender(session.envelope.mailFrom)}>\r\n`),
                  ...chunks,
                ]),
              );
        file.then(
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
  localCatcherPort = address.port;
  return {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        if (localCatcherPort === address.port) localCatcherPort = null;
        server.close(() => resolve());
      }),
  };
}

const envelopeSender = (from: false | { address: string }) => (from ? from.address : '');

export interface StoredMail {
  file: string;
  /** The envelope sender the mail came with (a campaign mail's VERP address). */
  returnPath: string | null;
  date: string | null;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  /** Attached files as the recipient's mail client names them. */
  attachments: { filename: string | null; contentType: string; size: number }[];
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
      returnPath:
        parsed.headerLines.find((h) => h.key === 'return-path')?.line.replace(/^[^:]*:\s*<?([^>]*)>?\s*$/, '$1') ||
        null,
      date: parsed.date ? parsed.date.toISOString() : null,
      from: parsed.from?.text ?? '',
      to,
      subject: parsed.subject ?? '',
      text: parsed.text ?? '',
      html: typeof parsed.html === 'string' ? parsed.html : null,
      attachments: parsed.attachments.map((a) => ({
        filename: a.filename ?? null,
        contentType: a.contentType,
        size: a.content.length,
      })),
    });
  }
  return mails;
}
