import { compile } from 'html-to-text';
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

/** A file sent with every mail of a campaign. */
export interface CampaignAttachment {
  /** As uploaded, Japanese included: nodemailer writes it as RFC 2231 (and RFC 2047 for old readers). */
  filename: string;
  /** Read once per send; every recipient's mail is encoded from the same bytes. */
  content: Buffer;
  contentType: string;
}

/** What is the same for every mail of a campaign (or of a test send). */
export interface CampaignTemplateInput {
  from: { name: string; address: string };
  subject: string;
  /** The campaign's sanitised HTML. */
  html: string;
  /** http(s) links through the click redirect (a campaign; a test send leaves them as they are). */
  trackClicks: boolean;
  /** A 1×1 open pixel (a campaign; a test send is never counted). */
  trackOpens: boolean;
  /** Files attached to every mail (none by default). */
  attachments?: readonly CampaignAttachment[];
}

/** What differs from one recipient to the next. */
export interface CampaignRecipientInput {
  to: { name: string | null; address: string };
  unsubscribeUrl: string;
  /** Required when the template tracks opens, ignored otherwise. */
  openUrl: string | null;
  /** Required when the template tracks clicks, ignored otherwise. */
  clickUrl: ((href: string) => string) | null;
  messageId: string;
  returnPath?: string | null;
}

export interface CampaignTemplate {
  /** One recipient's mail: only the links, the pixel and the headers are made per recipient. */
  render(recipient: CampaignRecipientInput): SendMailOptions;
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

// Compiled once: html-to-text's `convert` compiles its selectors on every call, which cost more than
// the conversion itself.
const toText = compile({ wordwrap: 72, selectors: [{ selector: 'img', format: 'skip' }] });

/**
 * A stand-in for a per-recipient URL while the campaign's HTML is inlined and its text made once.
 * Nothing in it is escaped by juice or html-to-text, and it is longer than the text's 72-column wrap,
 * as every signed tracking URL is, so the text wraps around it where it wraps around the real URL.
 */
const placeholder = (n: number) => `https://renkei-placeholder.invalid/${'x'.repeat(48)}/${n}/end`;
const PLACEHOLDER = /https:\/\/renkei-placeholder\.invalid\/x{48}\/(\d+)\/end/g;
const UNSUBSCRIBE = 0;
const OPEN = 1;
const FIRST_LINK = 2;

/** Replaces every placeholder by the URL of its slot (HTML-escaped for the HTML, as is for the text). */
function fill(template: string, urls: string[], escape: boolean): string {
  return template.replace(PLACEHOLDER, (_, n: string) => {
    const url = urls[Number(n)]!;
    return escape ? encodeAttribute(url) : url;
  });
}

/**
 * A campaign's mail made once: the links rewritten to slots, the footer and pixel added, CSS inlined
 * (Gmail and Outlook drop <style>) and the plain-text alternative made, so each recipient's mail is
 * only its signed URLs put into the slots and its headers (RFC 8058 one-click, Message-ID, VERP).
 * nodemailer encodes the Japanese subject as RFC 2047 encoded-words and the parts as UTF-8.
 */
export function prepareCampaignMail(input: CampaignTemplateInput): CampaignTemplate {
  const links: string[] = [];
  const body = input.trackClicks
    ? rewriteLinks(input.html, (href) => {
        links.push(href);
        return placeholder(FIRST_LINK + links.length - 1);
      })
    : input.html;
  const footer =
    `<p class="renkei-footer">今後このようなメールの配信を希望されない場合は` +
    `<a href="${placeholder(UNSUBSCRIBE)}">配信停止</a>の手続きをお願いいたします。</p>`;
  const pixel = input.trackOpens
    ? `<img src="${placeholder(OPEN)}" width="1" height="1" alt="" style="display:block;border:0">`
    : '';
  const html = juice(
    `<!DOCTYPE html><html lang="ja"><head><meta charset="utf-8"><style>.renkei-footer{${footerStyle}}</style></head>` +
      `<body>${body}${footer}${pixel}</body></html>`,
  );
  // From the rewritten body: a click in a plain-text client counts too.
  const text = toText(body);
  return {
    render(recipient) {
      const urls = [recipient.unsubscribeUrl, recipient.openUrl ?? ''];
      if (input.trackOpens && !recipient.openUrl) throw new Error('this campaign mail needs its open pixel URL');
      if (input.trackClicks) {
        const clickUrl = recipient.clickUrl;
        if (!clickUrl) throw new Error('this campaign mail needs its click URLs');
        for (const href of links) urls.push(clickUrl(href));
      }
      return {
        from: { name: input.from.name, address: input.from.address },
        to: recipient.to.name ? { name: recipient.to.name, address: recipient.to.address } : recipient.to.address,
        subject: input.subject,
        html: fill(html, urls, true),
        text: `${fill(text, urls, false)}\n\n--\n配信停止: ${recipient.unsubscribeUrl}\n`,
        textEncoding: 'base64',
        ...(input.attachments?.length
          ? {
              attachments: input.attachments.map((a) => ({
                filename: a.filename,
                content: a.content,
                contentType: a.contentType,
              })),
            }
          : {}),
        messageId: recipient.messageId,
        // As headers, not nodemailer's `list` option: the delivery builds the MIME with MailComposer
        // (gated-send.ts), which ignores `list`, so the mail went out without List-Unsubscribe.
        headers: {
          'List-Unsubscribe': `<${recipient.unsubscribeUrl}>`,
          'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
        },
        ...(recipient.returnPath ? { envelope: { from: recipient.returnPath, to: recipient.to.address } } : {}),
      };
    },
  };
}

/**
 * One recipient's campaign mail (a template of one): links through the click redirect, an open
 * pixel, an unsubscribe link in the body and the one-click headers, CSS inlined, a text part.
 */
export function buildCampaignMail(input: CampaignMailInput): SendMailOptions {
  return prepareCampaignMail({
    from: input.from,
    subject: input.subject,
    html: input.html,
    trackClicks: input.clickUrl !== null,
    trackOpens: input.openUrl !== null,
  }).render(input);
}
