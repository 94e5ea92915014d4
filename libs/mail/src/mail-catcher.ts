import fs from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { simpleParser } from 'mailparser';

function mailDir(dataDir: string): string {
  return path.join(dataDir, 'mail');
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
  await fs.mkdir(dir, { recursive: true });
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    // Campaigns are sent over pooled connections, several at once.
    maxClients: 100,
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

export interface StoredMail {
  file: string;
  date: string | null;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
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
      html: typeof parsed.html === 'string' ? parsed.html : null,
    });
  }
  return mails;
}
