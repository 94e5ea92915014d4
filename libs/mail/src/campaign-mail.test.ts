import nodemailer from 'nodemailer';
import { describe, expect, it } from 'vitest';
import { buildCampaignMail } from './campaign-mail.ts';

async function raw(options: ReturnType<typeof buildCampaignMail>): Promise<string> {
  // streamTransport builds the very MIME an SMTP transport would send.
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  const info = await transport.sendMail(options);
  return (info.message as Buffer).toString('utf8');
}

const mail = () =>
  buildCampaignMail({
    from: { name: '地域連携室', address: 'renkei@example.jp' },
    to: { name: '山田 太郎', address: 'yamada@example.jp' },
    subject: '【ご案内】新任医師着任のお知らせ',
    html: '<p style="color:#c00">循環器内科に新しい医師が着任しました。</p><p><a href="https://example.jp/a?x=1&amp;y=2">詳細</a> <a href="mailto:info@example.jp">問合せ</a></p>',
    unsubscribeUrl: 'https://renkei.example.jp/t/u/TOKEN',
    openUrl: 'https://renkei.example.jp/t/o/OPEN',
    clickUrl: (href) => `https://renkei.example.jp/t/c/${Buffer.from(href).toString('base64url')}`,
    messageId: '<abc@renkei>',
  });

describe('buildCampaignMail', () => {
  it('encodes the Japanese subject as encoded-words, sends UTF-8 text and HTML parts and the one-click headers', async () => {
    const message = await raw(mail());
    const subject = /^Subject: (.*(?:\n .*)*)/m.exec(message)![1]!;
    expect(subject).toMatch(/^=\?UTF-8\?[BQ]\?/);
    expect(subject).not.toMatch(/[^\x20-\x7e\n]/);
    expect(message).toMatch(/^List-Unsubscribe: <https:\/\/renkei\.example\.jp\/t\/u\/TOKEN>/m);
    expect(message).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
    expect(message).toMatch(/^Content-Type: multipart\/alternative/m);
    expect(message).toMatch(/^Content-Type: text\/plain; charset=utf-8$/m);
    expect(message).toMatch(/^Content-Type: text\/html; charset=utf-8$/m);
    expect(message).toMatch(/^From: =\?UTF-8\?[BQ]\?.*\?= <renkei@example\.jp>$/m);
  });

  it('rewrites http(s) links through the redirect, leaves mailto: alone, inlines CSS, adds the pixel and a text part', () => {
    const options = mail();
    const html = options.html as string;
    const signed = Buffer.from('https://example.jp/a?x=1&y=2').toString('base64url');
    expect(html).toContain(`href="https://renkei.example.jp/t/c/${signed}"`);
    expect(html).toContain('href="mailto:info@example.jp"');
    expect(html).toContain('src="https://renkei.example.jp/t/o/OPEN"');
    expect(html).toMatch(/<p class="renkei-footer" style="color: ?#666666/);
    expect(options.text).toContain('循環器内科に新しい医師が着任しました。');
    expect(options.text).toContain('配信停止: https://renkei.example.jp/t/u/TOKEN');
    expect(options.text).toContain(`https://renkei.example.jp/t/c/${signed}`);
    expect(options.text).not.toContain('https://example.jp/a');
  });

  it("keeps an uploaded image's lasting link as it is (an image is fetched, not clicked)", () => {
    const src =
      'https://renkei.example.jp/files/0b6f0a64-9a0e-4a53-8f58-6f1e2b1f0c11?expires=4102444800&amp;signature=SIG';
    const options = buildCampaignMail({
      from: { name: '地域連携室', address: 'renkei@example.jp' },
      to: { name: null, address: 'yamada@example.jp' },
      subject: '地図',
      html: `<p>会場の地図です。</p><img src="${src}" alt="会場の地図" style="max-width:100%;height:auto;border:0">`,
      unsubscribeUrl: 'https://renkei.example.jp/t/u/TOKEN',
      openUrl: 'https://renkei.example.jp/t/o/OPEN',
      clickUrl: (href) => `https://renkei.example.jp/t/c/${Buffer.from(href).toString('base64url')}`,
      messageId: '<img@renkei>',
    });
    expect(options.html as string).toContain(`<img src="${src}" alt="会場の地図"`);
  });
});
