import { describe, expect, it } from 'vitest';
import { EmailMultipartFields } from './email.schemas.ts';

const valid = { title: 'ご案内', sender_name: '地域連携室', sender_email: 'renkei@example.jp', main_content: '本文' };

describe('EmailMultipartFields', () => {
  it('parses and validates the stringified JSON part', () => {
    const parsed = EmailMultipartFields.parse({ stringified: JSON.stringify(valid) });
    expect(parsed.stringified).toEqual({ ...valid, doctor_ids: [], attachment_id: null });
  });

  it('answers a Japanese field error for broken JSON', () => {
    const result = EmailMultipartFields.safeParse({ stringified: '{"title":' });
    expect(result.success).toBe(false);
    expect(result.error!.issues).toEqual([
      expect.objectContaining({ path: ['stringified'], message: 'メールの内容を読み取れませんでした' }),
    ]);
  });

  it('names the field inside the JSON that is wrong', () => {
    const result = EmailMultipartFields.safeParse({ stringified: JSON.stringify({ ...valid, sender_email: 'x' }) });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]).toMatchObject({
      path: ['stringified', 'sender_email'],
      message: '差出人メールアドレスの形式が正しくありません',
    });
  });
});
