import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

/**
 * Two email campaigns of the demo tenant, so the email screens show something on first start: a
 * draft and a sent newsletter (delivered by the worker to the local catcher; the addresses are
 * example.jp). Written through the command service's own multipart endpoints.
 */
const campaigns = [
  {
    send: true,
    title: '【お知らせ】循環器内科 新任医師着任のご案内',
    recipients: ['yamada.clinic@example.jp', 'sato-naika@example.jp', 'suzuki.iin@example.jp', 'takahashi@example.jp'],
    body:
      '<h2>新任医師着任のご案内</h2><p>平素より格別のご高配を賜り、厚く御礼申し上げます。</p>' +
      '<p>4月より循環器内科に新しく医師が着任いたしました。心不全・不整脈の患者さまのご紹介をお待ちしております。</p>' +
      '<p>診療担当表は<a href="https://example.jp/cardiology">当院ホームページ</a>をご覧ください。</p>',
  },
  {
    send: false,
    title: '【ご案内】地域連携の会（6月）開催のお知らせ',
    recipients: ['yamada.clinic@example.jp', 'ito-geka@example.jp', 'not-an-address'],
    body:
      '<p>下記のとおり地域連携の会を開催いたします。ご多忙のところ恐縮ですが、ぜひご参加ください。</p>' +
      '<ul><li>日時：6月20日（金）19:00〜</li><li>会場：当院 3階 大会議室</li></ul>',
  },
] as const;

function multipart(json: object, csv: string) {
  const boundary = `----renkei-demo-${randomUUID()}`;
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="stringified"\r\n\r\n${JSON.stringify(json)}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="recipients_file"; filename="demo.csv"\r\n` +
        `Content-Type: text/csv\r\n\r\n`,
    ),
    Buffer.from(csv, 'utf8'),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, contentType: `multipart/form-data; boundary=${boundary}` };
}

export async function seedDemoEmails(app: FastifyInstance, token: string, senderEmail: string): Promise<number> {
  let requests = 0;
  const call = async (method: 'POST', url: string, body?: { payload: Buffer; contentType: string }) => {
    requests++;
    const res = await app.inject({
      method,
      url: `/api${url}`,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': body.contentType } : {}) },
      ...(body ? { payload: body.payload } : {}),
    });
    if (res.statusCode >= 300) throw new Error(`demo seed: ${method} ${url} answered ${res.statusCode}: ${res.body}`);
    return res.json() as { id: string };
  };
  for (const c of campaigns) {
    const csv = `メールアドレス,氏名\r\n${c.recipients.map((r) => `${r},`).join('\r\n')}\r\n`;
    const created = await call(
      'POST',
      '/emails',
      multipart(
        { title: c.title, sender_name: '地域医療連携室', sender_email: senderEmail, main_content: c.body },
        csv,
      ),
    );
    if (c.send) await call('POST', `/emails/${created.id}/send`);
  }
  return requests;
}
