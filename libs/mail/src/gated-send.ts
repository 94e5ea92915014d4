import { Readable } from 'node:stream';
import MailComposer from 'nodemailer/lib/mail-composer';
import type { SendMailOptions } from 'nodemailer';
import type { MailTransport } from './mail-transport.ts';

export interface GatedSend {
  /**
   * Resolves once a connection reads the message (envelope under way, the body handed over but not
   * its end); rejects when the mail fails before that (connection refused, recipient refused).
   */
  ready: Promise<void>;
  /**
   * Ends the message: the SMTP server sees the end of data (the final dot), accepts or refuses the
   * mail, and this resolves or rejects with its answer. Until then the server has not accepted it,
   * so a process that dies before `commit` leaves no mail behind (the server drops a cut-off DATA).
   */
  commit(): Promise<void>;
  /** Gives the mail up before its end of data (shutdown, another mail's failure): never accepted. */
  abort(): Promise<void>;
}

/**
 * Sends a mail in two steps, so the caller decides when the server may accept it: everything up to
 * the end of data (connect, MAIL FROM, RCPT TO, DATA, the body) overlaps freely with other mails,
 * and only `commit` (the final dot and the answer) is the caller's to order. The delivery reactor
 * commits one mail of a campaign at a time and stores its outcome before the next commit, so a
 * crash leaves at most one mail of a campaign accepted without its outcome stored.
 */
export async function gatedSend(transport: MailTransport, options: SendMailOptions): Promise<GatedSend> {
  const message = await new MailComposer(options).compile().build();
  let pushed = false;
  let onRead!: () => void;
  const read = new Promise<void>((resolve) => (onRead = resolve));
  const body = new Readable({
    read() {
      if (pushed) return;
      pushed = true;
      this.push(message);
      onRead();
    },
  });
  const envelope = options.envelope ?? {
    from:
      typeof options.from === 'object' && options.from && 'address' in options.from
        ? options.from.address
        : options.from,
    to: typeof options.to === 'object' && options.to && 'address' in options.to ? options.to.address : options.to,
  };
  const sending = transport.sendMail({ envelope, raw: body } as SendMailOptions);
  const ready = new Promise<void>((resolve, reject) => {
    void read.then(resolve);
    sending.catch(reject);
  });
  return {
    ready,
    async commit() {
      body.push(null);
      await sending;
    },
    async abort() {
      body.destroy(new Error('mail given up before its end of data'));
      await sending.catch(() => undefined);
    },
  };
}
