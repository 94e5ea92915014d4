import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isVerpAddress, parseBounce, readVerpAddress, verpAddress } from './bounce.ts';

const key = randomBytes(32);

describe('VERP addresses', () => {
  it('name the email and the recipient within a 64-character local part, whatever the case', () => {
    const emailId = randomUUID();
    const address = verpAddress(key, 'bounces@mail.example.jp', { emailId, recipient: 9_999 });
    expect(address).toMatch(/^bounces\+[a-z2-7]{39}@mail\.example\.jp$/);
    expect(address.split('@')[0]!.length).toBeLessThanOrEqual(64);
    expect(isVerpAddress(address)).toBe(true);
    expect(readVerpAddress(key, address)).toEqual({ emailId, recipient: 9_999 });
    expect(readVerpAddress(key, address.toUpperCase())).toEqual({ emailId, recipient: 9_999 });
  });

  it('refuse a forged, altered or foreign token', () => {
    const address = verpAddress(key, 'bounces@example.jp', { emailId: randomUUID(), recipient: 1 });
    expect(readVerpAddress(randomBytes(32), address)).toBeNull();
    const token = address.slice(8, 47);
    const altered = token.slice(0, 10) + (token[10] === 'a' ? 'b' : 'a') + token.slice(11);
    expect(readVerpAddress(key, address.replace(token, altered))).toBeNull();
    expect(readVerpAddress(key, 'bounces@example.jp')).toBeNull();
    expect(isVerpAddress('someone@example.jp')).toBe(false);
  });
});

const dsn = (action: string, status: string) =>
  Buffer.from(
    [
      'Delivered-To: bounces+abc@example.jp',
      'From: MAILER-DAEMON@mx.example.jp',
      'To: bounces+abc@example.jp',
      'Subject: Undelivered Mail Returned to Sender',
      'MIME-Version: 1.0',
      'Content-Type: multipart/report; report-type=delivery-status; boundary="b"',
      '',
      '--b',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'This is the mail system at host mx.example.jp.',
      '',
      '--b',
      'Content-Type: message/delivery-status',
      '',
      'Reporting-MTA: dns; mx.example.jp',
      '',
      'Final-Recipient: rfc822; nobody@example.jp',
      `Action: ${action}`,
      `Status: ${status}`,
      'Diagnostic-Code: smtp; 550 5.1.1 <nobody@example.jp>: Recipient address',
      '    rejected: User unknown',
      '',
      '--b--',
      '',
    ].join('\r\n'),
  );

describe('parseBounce', () => {
  it('reads a DSN: status, diagnostic and where it was delivered', async () => {
    const bounce = await parseBounce(dsn('failed', '5.1.1'));
    expect(bounce).toEqual({
      deliveredTo: ['bounces+abc@example.jp'],
      status: '5.1.1',
      reason: '550 5.1.1 <nobody@example.jp>: Recipient address rejected: User unknown',
      permanent: true,
    });
  });

  it('takes a delay notice as no failure', async () => {
    expect(await parseBounce(dsn('delayed', '4.4.1'))).toMatchObject({ status: '4.4.1', permanent: false });
  });

  it('counts a bounce without a DSN as a failure, with the status its text carries if any', async () => {
    const plain = Buffer.from(
      'To: bounces+abc@example.jp\r\nSubject: =?UTF-8?B?6YWN6YCB5aSx5pWX?=\r\n\r\nメールを配信できませんでした。\r\n550 5.2.2 mailbox full\r\n',
    );
    expect(await parseBounce(plain)).toEqual({
      deliveredTo: ['bounces+abc@example.jp'],
      status: '5.2.2',
      reason: 'メールを配信できませんでした。',
      permanent: true,
    });
  });
});
