import { convert } from 'html-to-text';
import juice from 'juice';
import type { SendMailOptions } from 'nodemailer';

export interface CampaignMailInput {
  from: { name: string; address: string };
  to: { name: string | null; address: string };
  subject: string;
  /** The campaign's sanitised HTML. */
  html: string;
  unsubscribeUrl: string;
  /** The 1×1 open pixel's URL; null for a test send (never counted). */
  openUrl: string | null;
  /** The redirect URL standing for an http(s) link of the mail; null leaves links as they are. */
  clickUrl: ((href: string) => string) | null;
  /** Message-ID, stable per recipient so a resend after a crash is recognisably the same mail. */
  messageId: string;
  /** The envelope sender (VERP: bounces come back to it); absent: the From address. */
  returnPath?: string | null;
}

const decodeAttribute = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
const encodeAttribute = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

/** Every http(s) `href` of the (sanitised, double-quoted) HTML through `rewrite`; mailto: and tel: stay. */
function rewriteLinks(html: string, rewrite: (href: string) => string): string {
  return html.replace(/(<a\b[^>]*?\bhref=")([^"]*)(")/gi, (whole, before: string, href: string, after: string) => {
    const url = decodeAttribute(href);
    return /^https?:\/\//i.test(url) ? `${before}${encodeAttribute(rewrite(url))}${after}` : whole;
  });
}

const footerStyle = 'color:#666666;font-size:12px;margin-top:24px;border-top:1px solid #dddddd;padding-top:8px';

/**
 * One recipient's campaign mail: links through the click redirect, an open pixel, an unsubscribe
 * link in the body and RFC 8058 one-click headers, CSS inlined (Gmail and Outlook drop <style>),
 * and a plain-text alternative. nodemailer encodes the Japanese subject as RFC 2047 encoded-words
 * and the parts as UTF-8.
 */
export function buildCampaignMail(input: CampaignMailInput): SendMailOptions {
  const body = input.clickUrl ? rewriteLinks(input.html, input.clickUrl) : input.html;
  const footer =
    `<p class="renkei-footer">今後このようなメールの配信を希望されない場合は` +
    `<a href="${encodeAttribute(input.unsubscribeUrl)}">配信停止</a>の手続きをお願いいたします。</p>`;
  const pixel = input.openUrl
    ? `<img src="${encodeAttribute(input.openUrl)}" width="1" height="1" alt="" style="display:block;border:0">`
    : '';
  const document =
    `<!DOCTYPE html><html lang="ja"><head><meta charset="utf-8"><style>.renkei-footer{${footerStyle}}</style></head>` +
    `<body>${body}${footer}${pixel}</body></html>`;
  const html = juice(document);
  // From the rewritten body: a click in a plain-text client counts too.
  const text = convert(body, { wordwrap: 72, selectors: [{ selector: 'img', format: 'skip' }] });
  return {
    from: { name: input.from.name, address: input.from.address },
    to: input.to.name ? { name: input.to.name, address: input.to.address } : input.to.address,
    subject: input.subject,
    html,
    text: `${text}\n\n--\n配信停止: ${input.unsubscribeUrl}\n`,
    textEncoding: 'base64',
    messageId: input.messageId,
    list: { unsubscribe: input.unsubscribeUrl },
    headers: { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
    ...(input.returnPath ? { envelope: { from: input.returnPath, to: input.to.address } } : {}),
  };
}
