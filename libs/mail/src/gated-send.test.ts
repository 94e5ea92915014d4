import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCampaignMail } from './campaign-mail.ts';
import { gatedSend } from './gated-send.ts';
import { listMails, startMailCatcher } from './mail-catcher.ts';
import { createMailTransport } from './mail-transport.ts';

let dir: string;
let catcher: { port: number; close(): Promise<void> };

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-gated-'));
  catcher = await startMailCatcher(dir, 0);
});

afterAll(async () => {
  await catcher?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const mail = (address: string) =>
  buildCampaignMail({
    from: { name: '地域連携室', address: 'renkei@example.jp' },
    to: { name: '医師', address },
    subject: '【ご案内】勉強会',
    html: '<p>本文です。</p>',
    unsubscribeUrl: 'https://renkei.example.jp/t/u/x',
    openUrl: null,
    clickUrl: null,
    messageId: '<gated-1@renkei>',
    returnPath: 'bounces+abc@renkei.example.jp',
  });

describe('gatedSend', () => {
  it('holds the end of data until commit: nothing is accepted before, the whole mail after', async () => {
    const transport = createMailTransport({ catcherPort: catcher.port, pool: true });
    try {
      const send = await gatedSend(transport, mail('held@example.jp'));
      await send.ready;
      await new Promise((r) => setTimeout(r, 300));
      expect((await listMails(dir)).filter((m) => m.to.includes('held@example.jp'))).toHaveLength(0);
      await send.commit();
      const [caught] = (await listMails(dir)).filter((m) => m.to.includes('held@example.jp'));
      expect(caught!.subject).toBe('【ご案内】勉強会');
      expect(caught!.returnPath).toBe('bounces+abc@renkei.example.jp');
      expect(caught!.text).toContain('本文です。');
      // RFC 8058 one-click: both headers in the MIME the server received (MailComposer ignores nodemailer's `list`).
      const raw = fs.readFileSync(caught!.file, 'utf8');
      expect(raw).toMatch(/^List-Unsubscribe: <https:\/\/renkei\.example\.jp\/t\/u\/x>\r?$/m);
      expect(raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r?$/m);
    } finally {
      transport.close();
    }
  });

  it('a mail never committed is never accepted: the connection closes mid-data', async () => {
    const transport = createMailTransport({ catcherPort: catcher.port, pool: true });
    const send = await gatedSend(transport, mail('dropped@example.jp'));
    await send.ready;
    await send.abort();
    transport.close();
    await new Promise((r) => setTimeout(r, 300));
    expect((await listMails(dir)).filter((m) => m.to.includes('dropped@example.jp'))).toHaveLength(0);
  });
});
