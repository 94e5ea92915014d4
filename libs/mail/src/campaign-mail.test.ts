import nodemailer from 'nodemailer';
import { describe, expect, it } from 'vitest';
import { convert } from 'html-to-text';
import juice from 'juice';
import { simpleParser } from 'mailparser';
import MailComposer from 'nodemailer/lib/mail-composer';
import { buildCampaignMail, prepareCampaignMail } from './campaign-mail.ts';

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

describe('prepareCampaignMail', () => {
  // The per-recipient render before templates: juice and html-to-text on each recipient's own HTML.
  function renderedAlone(html: string, unsubscribeUrl: string, openUrl: string, clickUrl: (href: string) => string) {
    const rewritten = html.replace(/(<a\b[^>]*?\bhref=")([^"]*)(")/gi, (whole, before: string, href: string, after) => {
      const url = href.replace(/&amp;/g, '&');
      return /^https?:\/\//i.test(url)
        ? `${before}${clickUrl(url).replace(/&/g, '&amp;').replace(/"/g, '&quot;')}${after}`
        : whole;
    });
    const document =
      `<!DOCTYPE html><html lang="ja"><head><meta charset="utf-8"><style>.renkei-footer{color:#666666;font-size:12px;margin-top:24px;border-top:1px solid #dddddd;padding-top:8px}</style></head>` +
      `<body>${rewritten}<p class="renkei-footer">今後このようなメールの配信を希望されない場合は<a href="${unsubscribeUrl}">配信停止</a>の手続きをお願いいたします。</p>` +
      `<img src="${openUrl}" width="1" height="1" alt="" style="display:block;border:0"></body></html>`;
    return {
      html: juice(document),
      text: `${convert(rewritten, { wordwrap: 72, selectors: [{ selector: 'img', format: 'skip' }] })}\n\n--\n配信停止: ${unsubscribeUrl}\n`,
    };
  }

  it('gives every recipient the mail a render of its own would give (signed URLs of any length past the wrap)', () => {
    const html =
      '<h2>新任医師のご案内</h2><p style="color:#c00">いつもお世話になっております。地域医療連携室です。4月より循環器内科に新しい医師が着任しました。' +
      '<a href="https://example.jp/doctors?a=1&amp;b=2">医師紹介</a>をご覧ください。</p>' +
      '<ul><li>外来：月・水・金 <a href="https://example.jp/x">外来表</a> and some more words to wrap around the link</li>' +
      '<li>紹介予約：<a href="tel:0542000000">054-200-0000</a> <a href="mailto:a@example.jp">メール</a></li></ul>';
    const template = prepareCampaignMail({
      from: { name: '地域連携室', address: 'renkei@example.jp' },
      subject: '件名',
      html,
      trackClicks: true,
      trackOpens: true,
    });
    for (const [i, address] of [
      'a@example.jp',
      'a.very.long.address.of.a.doctor@some-clinic.example.co.jp',
    ].entries()) {
      const token = (u?: string) => Buffer.from(JSON.stringify({ r: address, u, i })).toString('base64url');
      const urls = {
        unsubscribeUrl: `https://renkei.example.jp/t/u/${token()}`,
        openUrl: `https://renkei.example.jp/t/o/${token()}`,
        clickUrl: (href: string) => `https://renkei.example.jp/t/c/${token(href)}&q="x"`,
      };
      const mail = template.render({ to: { name: null, address }, messageId: `<${i}@renkei>`, ...urls });
      const alone = renderedAlone(html, urls.unsubscribeUrl, urls.openUrl, urls.clickUrl);
      expect(mail.html).toBe(alone.html);
      expect(mail.text).toBe(alone.text);
      expect(mail.to).toBe(address);
    }
  });

  it('leaves links alone and adds no pixel for a test send', () => {
    const mail = prepareCampaignMail({
      from: { name: '地域連携室', address: 'renkei@example.jp' },
      subject: '[テスト送信] 件名',
      html: '<p><a href="https://example.jp/a">詳細</a></p>',
      trackClicks: false,
      trackOpens: false,
    }).render({
      to: { name: '医師', address: 'a@example.jp' },
      unsubscribeUrl: 'https://renkei.example.jp/t/u/TOKEN',
      openUrl: null,
      clickUrl: null,
      messageId: '<t@renkei>',
    });
    expect(mail.html).toContain('href="https://example.jp/a"');
    expect(mail.html).not.toContain('<img');
    expect(mail.html).toContain('href="https://renkei.example.jp/t/u/TOKEN"');
    expect(mail.text).toContain('https://example.jp/a');
  });
});

describe('campaign attachments', () => {
  it('attaches the file to every mail with its Japanese name as RFC 2231, the bytes intact', async () => {
    const pdf = Buffer.from('%PDF-1.4\n% 勉強会のご案内\n%%EOF\n');
    const template = prepareCampaignMail({
      from: { name: '地域連携室', address: 'renkei@example.jp' },
      subject: '勉強会のご案内',
      html: '<p>資料を添付します。</p>',
      trackClicks: false,
      trackOpens: false,
      attachments: [{ filename: '勉強会のご案内（第３回）.pdf', content: pdf, contentType: 'application/pdf' }],
    });
    for (const address of ['a@example.jp', 'b@example.jp']) {
      const options = template.render({
        to: { name: null, address },
        unsubscribeUrl: 'https://renkei.example.jp/t/u/TOKEN',
        openUrl: null,
        clickUrl: null,
        messageId: `<${address}@renkei>`,
      });
      // The MIME the delivery sends (gated-send.ts builds it with MailComposer).
      const message = (await new MailComposer(options).compile().build()).toString('utf8');
      expect(message).toMatch(/^Content-Type: multipart\/mixed/m);
      expect(message).toMatch(/^Content-Type: multipart\/alternative/m);
      // Only ASCII in the headers: the name as RFC 2231 `filename*`, percent-encoded UTF-8.
      const disposition = /^Content-Disposition: attachment;[^\n]*(?:\n[ \t][^\n]*)*/m.exec(message)![0];
      expect(disposition).toMatch(/filename\*(0\*)?=utf-8''/i);
      expect(disposition).not.toMatch(/[^\x20-\x7e\r\n]/);
      const parsed = await simpleParser(message);
      expect(parsed.attachments).toHaveLength(1);
      expect(parsed.attachments[0]!.filename).toBe('勉強会のご案内（第３回）.pdf');
      expect(parsed.attachments[0]!.contentType).toBe('application/pdf');
      expect(parsed.attachments[0]!.content.equals(pdf)).toBe(true);
    }
  });

  it('adds no attachment part when the campaign has none', () => {
    const options = prepareCampaignMail({
      from: { name: '地域連携室', address: 'renkei@example.jp' },
      subject: '件名',
      html: '<p>本文</p>',
      trackClicks: false,
      trackOpens: false,
    }).render({
      to: { name: null, address: 'a@example.jp' },
      unsubscribeUrl: 'https://renkei.example.jp/t/u/TOKEN',
      openUrl: null,
      clickUrl: null,
      messageId: '<n@renkei>',
    });
    expect(options.attachments).toBeUndefined();
  });
});
