import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { readRecipientsFile } from './email-recipients-file.ts';

describe('readRecipientsFile', () => {
  it('reads a Shift_JIS file with Japanese headers, numbering rows as the file lines', () => {
    const csv = 'メールアドレス,氏名,医療機関コード\r\na@example.jp,山田 太郎,1311234567\r\n\r\nおかしい,佐藤,\r\n';
    expect(readRecipientsFile(iconv.encode(csv, 'cp932'))).toEqual({
      rows: [
        { row: 2, email: 'a@example.jp', name: '山田 太郎', institutionCode: '1311234567' },
        { row: 4, email: 'おかしい', name: '佐藤', institutionCode: null },
      ],
    });
  });

  it('reads UTF-8 with a BOM and English headers in another order', () => {
    const csv = '\uFEFFname,email\n鈴木,b@example.jp\n';
    expect(readRecipientsFile(Buffer.from(csv, 'utf8'))).toEqual({
      rows: [{ row: 2, email: 'b@example.jp', name: '鈴木', institutionCode: null }],
    });
  });

  it('says which column is missing', () => {
    expect(readRecipientsFile(Buffer.from('氏名\n山田\n'))).toEqual({
      errors: [{ field: 'recipients_file', message: '送信先ファイルの1行目に「メールアドレス」の列がありません' }],
    });
  });
});
