import { createHmac, timingSafeEqual } from 'node:crypto';
import { simpleParser } from 'mailparser';

/**
 * VERP (variable envelope return path): each campaign mail's envelope sender is the bounce mailbox
 * with a token naming the email and the recipient, `bounces+<token>@domain`. A bounce goes to the
 * envelope sender, so whatever it looks like, the address it came to says whose mail failed.
 *
 * The token is RFC 4648 base32 in lower case (mail systems may change the case of a local part) of
 * the email id (16 bytes), the recipient's position in the campaign (3 bytes) and 5 bytes of an
 * HMAC-SHA256 over them: 39 characters, so `bounces+<token>` stays within the 64 a local part may have.
 */
const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';

function base32(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

function fromBase32(text: string): Buffer | null {
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of text.toLowerCase()) {
    const index = alphabet.indexOf(char);
    if (index < 0) return null;
    value = ((value << 5) | index) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(bytes);
}

const tokenBytes = 24;
const macBytes = 5;

const mac = (key: Buffer, body: Buffer) =>
  createHmac('sha256', key).update('verp').update(body).digest().subarray(0, macBytes);

export interface VerpClaims {
  emailId: string;
  /** The recipient's position in the campaign's list. */
  recipient: number;
}

/** The envelope sender of one recipient's mail: `<local>+<token>@<domain>` of the bounce mailbox. */
export function verpAddress(key: Buffer, bounceAddress: string, claims: VerpClaims): string {
  const at = bounceAddress.lastIndexOf('@');
  const body = Buffer.alloc(tokenBytes - macBytes);
  Buffer.from(claims.emailId.replace(/-/g, ''), 'hex').copy(body, 0);
  body.writeUIntBE(claims.recipient, 16, 3);
  const token = base32(Buffer.concat([body, mac(key, body)]));
  return `${bounceAddress.slice(0, at)}+${token}${bounceAddress.slice(at)}`;
}

const verpPattern = /^[^@\s+]+\+([a-z2-7]{39})@/i;

/** The claims of a VERP address signed with `key`; null for any other address or a forged token. */
export function readVerpAddress(key: Buffer, address: string): VerpClaims | null {
  const token = verpPattern.exec(address.trim())?.[1];
  const bytes = token ? fromBase32(token) : null;
  if (!bytes || bytes.length !== tokenBytes) return null;
  const body = bytes.subarray(0, tokenBytes - macBytes);
  if (!timingSafeEqual(mac(key, body), bytes.subarray(tokenBytes - macBytes))) return null;
  const hex = body.subarray(0, 16).toString('hex');
  return {
    emailId: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
    recipient: body.readUIntBE(16, 3),
  };
}

/** Whether an envelope recipient looks like a VERP address (the catcher files those as bounces). */
export const isVerpAddress = (address: string): boolean => verpPattern.test(address.trim());

export interface Bounce {
  /** The VERP addresses the bounce was delivered to (Delivered-To, else To). */
  deliveredTo: string[];
  /** The DSN's Status (RFC 3464), e.g. `5.1.1`; null when there is none to read. */
  status: string | null;
  /** The Diagnostic-Code, else the first meaningful line of the text; at most 500 characters. */
  reason: string;
  /** A failure (5.x.x, `Action: failed`, or a bounce saying nothing); false for a delay notice (4.x.x, `delayed`). */
  permanent: boolean;
}

const field = (text: string, name: string) =>
  new RegExp(`^${name}:[ \\t]*(.+(?:\\r?\\n[ \\t].+)*)`, 'im').exec(text)?.[1]?.replace(/\s+/g, ' ').trim() ?? null;

/**
 * What a bounce says: a DSN (multipart/report with a message/delivery-status part) when the server
 * sends one, else whatever status code its text carries. A message with nothing to read counts as a
 * failure: a mail came back to the recipient's own return path, and only a bounce does that.
 */
export async function parseBounce(raw: Buffer): Promise<Bounce> {
  const parsed = await simpleParser(raw);
  const headerList = (name: string) =>
    parsed.headerLines.filter((h) => h.key === name).map((h) => h.line.slice(h.line.indexOf(':') + 1).trim());
  const to = Array.isArray(parsed.to) ? parsed.to.flatMap((a) => a.value) : (parsed.to?.value ?? []);
  const deliveredTo = headerList('delivered-to');
  const dsn = parsed.attachments.find((a) => /^message\/(global-)?delivery-status$/i.test(a.contentType));
  const text = parsed.text ?? '';
  // mailparser may hand the delivery-status part over as text: its fields are read there then.
  const report = dsn ? dsn.content.toString('utf8') : text;
  const status =
    field(report, 'Status')?.match(/[245]\.\d{1,3}\.\d{1,3}/)?.[0] ??
    text.match(/\b[45]\.\d{1,3}\.\d{1,3}\b/)?.[0] ??
    null;
  const action = field(report, 'Action')?.toLowerCase() ?? null;
  const diagnostic = field(report, 'Diagnostic-Code')?.replace(/^smtp;\s*/i, '') ?? null;
  const firstLine = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l.length > 0 && !/^[\w-]+:/.test(l));
  const delayed = action === 'delayed' || (status?.startsWith('4') ?? false);
  return {
    deliveredTo: deliveredTo.length > 0 ? deliveredTo : to.flatMap((a) => (a.address ? [a.address] : [])),
    status,
    reason: (diagnostic ?? firstLine ?? parsed.subject ?? '').slice(0, 500),
    permanent: !delayed && action !== 'delivered' && action !== 'relayed' && action !== 'expanded',
  };
}
