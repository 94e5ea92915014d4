import { randomUUID } from 'node:crypto';
import iconv from 'iconv-lite';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { featureKeys, type FeatureKey } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, newEventMetadata, streamId, type EventStore } from '@renkei/event-store';
import { createPostgresFileStorage, fileUrlKey, verifyFileUrl } from '@renkei/file-storage';
import type { TestAuth } from '@renkei/service-kit/testing';
import { buildTestCommandApp, tenantEventCount } from '../testing.ts';

let db: TestDatabase;
let store: EventStore;
let app: FastifyInstance;
let testAuth: TestAuth;
// Every feature, without the sender restriction (a test of its own turns it on).
const unrestrictedFeatures = featureKeys.filter((f) => f !== 'email_sender_restricted');

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  ({ app, testAuth } = await buildTestCommandApp(db, store));
});

afterAll(async () => {
  await app?.close();
  await store?.close();
  await db?.close();
});

const content = {
  title: '新任医師のご案内',
  sender_name: '地域連携室',
  sender_email: 'renkei@example.jp',
  main_content: '<p>ご案内です<script>alert(1)</script></p>',
};

function multipart(json: unknown, file?: Buffer) {
  const boundary = '----renkei' + randomUUID();
  const parts: Buffer[] = [
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="stringified"\r\n\r\n${typeof json === 'string' ? json : JSON.stringify(json)}\r\n`,
    ),
  ];
  if (file)
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="recipients_file"; filename="list.csv"\r\nContent-Type: text/csv\r\n\r\n`,
      ),
      file,
      Buffer.from('\r\n'),
    );
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

interface Caller {
  tenantId: string;
  features?: readonly FeatureKey[];
}

async function call(
  caller: Caller,
  method: 'POST' | 'PUT' | 'DELETE',
  url: string,
  body?: { payload: Buffer; contentType: string } | object,
  headers: Record<string, string> = {},
) {
  const token = await testAuth.token({ tenantId: caller.tenantId, features: caller.features ?? unrestrictedFeatures });
  const isMultipart = body && 'contentType' in body && Buffer.isBuffer(body.payload);
  return app.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${token}`,
      ...(isMultipart ? { 'content-type': (body as { contentType: string }).contentType } : {}),
      ...headers,
    },
    ...(body === undefined ? {} : { payload: isMultipart ? (body as { payload: Buffer }).payload : (body as object) }),
  });
}

const sjisList = iconv.encode(
  'メールアドレス,氏名,医療機関コード\r\na@example.jp,山田 太郎,1311234567\r\nA@Example.JP,重複,\r\nだめ,佐藤,\r\nb@example.jp,鈴木,\r\n',
  'cp932',
);

describe('email commands', () => {
  it('creates a draft from a Shift_JIS file: sanitised, duplicates removed, bad rows counted', async () => {
    const tenant = { tenantId: randomUUID() };
    const res = await call(tenant, 'POST', '/api/emails', multipart(content, sjisList));
    expect(res.statusCode).toBe(201);
    expect(res.headers.etag).toBe('"0"');
    expect(res.headers['x-position']).toBeTruthy();
    expect(res.json()).toMatchObject({
      title: '新任医師のご案内',
      status: 'unsent',
      destination_count: 2,
      invalid_destination_count: 1,
      // The bad row as the spreadsheet numbers it (the header is row 1), and what it held.
      invalid_destinations: [{ row_number: 4, value: 'だめ' }],
      main_content: '<p>ご案内です</p>',
      sent_at: null,
      version: 0,
    });
  });

  it('answers 422 naming the field, and writes nothing', async () => {
    const tenant = { tenantId: randomUUID() };
    const bad = await call(tenant, 'POST', '/api/emails', multipart({ ...content, title: '' }));
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors).toEqual([expect.objectContaining({ field: 'stringified.title' })]);
    const broken = await call(tenant, 'POST', '/api/emails', multipart('{"title":'));
    expect(broken.statusCode).toBe(422);
    const noColumn = await call(tenant, 'POST', '/api/emails', multipart(content, Buffer.from('氏名\n山田\n')));
    expect(noColumn.statusCode).toBe(422);
    expect(noColumn.json().errors[0].field).toBe('recipients_file');
    const unknownDoctor = await call(
      tenant,
      'POST',
      '/api/emails',
      multipart({ ...content, doctor_ids: [randomUUID()] }),
    );
    expect(unknownDoctor.statusCode).toBe(422);
    expect(unknownDoctor.json().errors[0].field).toBe('stringified.doctor_ids.0');
    expect(await tenantEventCount(db, tenant.tenantId)).toBe(0);
  });

  it('restricts the sender to the allowed addresses when the tenant has email_sender_restricted', async () => {
    const tenantId = randomUUID();
    await store.append(
      streamId('tenant', tenantId),
      [
        {
          type: 'TenantRegistered',
          data: {
            tenant_id: tenantId,
            slug: 't' + tenantId.slice(0, 8),
            name: 'テスト病院',
            plan: 'basic',
            features: [...featureKeys],
            limits: { max_account_count: null, max_tag_count: null },
            email_sender_allowed_addresses: ['Renkei@Example.jp'],
          },
          metadata: newEventMetadata(tenantId),
        },
      ],
      { expectedRevision: 'any' },
    );
    const restricted = { tenantId, features: featureKeys };
    const refused = await call(
      restricted,
      'POST',
      '/api/emails',
      multipart({ ...content, sender_email: 'x@example.jp' }),
    );
    expect(refused.statusCode).toBe(422);
    expect(refused.json().errors).toEqual([
      { field: 'stringified.sender_email', message: '差出人メールアドレスは許可されたアドレスから選択してください' },
    ]);
    expect((await call(restricted, 'POST', '/api/emails', multipart(content, sjisList))).statusCode).toBe(201);
    const unrestricted = { tenantId, features: unrestrictedFeatures };
    const free = await call(
      unrestricted,
      'POST',
      '/api/emails',
      multipart({ ...content, sender_email: 'x@example.jp' }),
    );
    expect(free.statusCode).toBe(201);
  });

  it('updates a draft keeping its file recipients, copies it, sends once, refuses to delete or edit it after', async () => {
    const tenant = { tenantId: randomUUID() };
    const created = (await call(tenant, 'POST', '/api/emails', multipart(content, sjisList))).json();
    const url = `/api/emails/${created.id}`;
    const stale = await call(tenant, 'PUT', url, multipart({ ...content, title: '改題' }), { 'if-match': '"5"' });
    expect(stale.statusCode).toBe(409);
    const updated = await call(tenant, 'PUT', url, multipart({ ...content, title: '改題' }), { 'if-match': '"0"' });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({
      title: '改題',
      destination_count: 2,
      invalid_destination_count: 1,
      version: 1,
    });

    const copy = await call(tenant, 'POST', `${url}/copy`);
    expect(copy.statusCode).toBe(201);
    expect(copy.json()).toMatchObject({ title: '改題', status: 'unsent', destination_count: 2 });
    expect(copy.json().id).not.toBe(created.id);

    const test = await call(tenant, 'POST', `${url}/send_for_test`, { email_addresses: ['me@example.jp'] });
    expect(test.statusCode).toBe(202);
    expect(test.json()).toEqual({ count: 1 });

    const before = await tenantEventCount(db, tenant.tenantId);
    const sent = await call(tenant, 'POST', `${url}/send`);
    expect(sent.statusCode).toBe(202);
    expect(sent.json()).toMatchObject({ status: 'sent' });
    expect(sent.json().sent_at).toBeTruthy();
    const again = await call(tenant, 'POST', `${url}/send`);
    expect(again.statusCode).toBe(202);
    expect(again.json().sent_at).toBe(sent.json().sent_at);
    expect(await tenantEventCount(db, tenant.tenantId)).toBe(before + 1);

    const del = await call(tenant, 'DELETE', url);
    expect(del.statusCode).toBe(422);
    expect(del.json().errors[0].message).toBe('送信済みのメールは削除できません');
    expect((await call(tenant, 'PUT', url, multipart(content))).statusCode).toBe(422);

    expect((await call(tenant, 'DELETE', `/api/emails/${copy.json().id}`)).statusCode).toBe(204);
    expect((await call(tenant, 'DELETE', `/api/emails/${copy.json().id}`)).statusCode).toBe(404);
  });

  it('answers a retried copy or test send (same Idempotency-Key, sequential or concurrent) as the first, once', async () => {
    const tenant = { tenantId: randomUUID() };
    const created = (await call(tenant, 'POST', '/api/emails', multipart(content, sjisList))).json();
    const url = `/api/emails/${created.id}`;

    const copyKey = { 'idempotency-key': 'copy-1' };
    const copies = await Promise.all(
      Array.from({ length: 5 }, () => call(tenant, 'POST', `${url}/copy`, undefined, copyKey)),
    );
    expect(copies.map((r) => r.statusCode)).toEqual([201, 201, 201, 201, 201]);
    for (const r of copies) expect(r.json()).toEqual(copies[0]!.json());
    const events = await tenantEventCount(db, tenant.tenantId);
    const copyAgain = await call(tenant, 'POST', `${url}/copy`, undefined, copyKey);
    expect(copyAgain.json()).toEqual(copies[0]!.json());
    expect(await tenantEventCount(db, tenant.tenantId)).toBe(events);

    const testKey = { 'idempotency-key': 'test-send-1' };
    const body = { email_addresses: ['me@example.jp', 'you@example.jp'] };
    const first = await call(tenant, 'POST', `${url}/send_for_test`, body, testKey);
    expect(first.statusCode, first.body).toBeLessThan(300);
    const afterFirst = await tenantEventCount(db, tenant.tenantId);
    const retries = await Promise.all(
      Array.from({ length: 3 }, () => call(tenant, 'POST', `${url}/send_for_test`, body, testKey)),
    );
    for (const r of retries)
      expect({ status: r.statusCode, body: r.json() }).toEqual({ status: first.statusCode, body: first.json() });
    // No second test mail: the retries appended nothing.
    expect(await tenantEventCount(db, tenant.tenantId)).toBe(afterFirst);
    const other = await call(tenant, 'POST', `${url}/send_for_test`, { email_addresses: ['x@example.jp'] }, testKey);
    expect(other.statusCode).toBe(422);
  });

  it('answers a retried send (same Idempotency-Key, sequential or concurrent) as the first; the key on another email is a 422', async () => {
    const tenant = { tenantId: randomUUID() };
    const create = async () => (await call(tenant, 'POST', '/api/emails', multipart(content, sjisList))).json();
    const email = await create();
    const sendKey = { 'idempotency-key': 'send-1' };
    const sends = await Promise.all(
      Array.from({ length: 4 }, () => call(tenant, 'POST', `/api/emails/${email.id}/send`, undefined, sendKey)),
    );
    expect(sends.map((r) => r.statusCode)).toEqual([202, 202, 202, 202]);
    for (const r of sends) expect(r.json()).toEqual(sends[0]!.json());
    const events = await tenantEventCount(db, tenant.tenantId);
    const again = await call(tenant, 'POST', `/api/emails/${email.id}/send`, undefined, sendKey);
    expect(again.json()).toEqual(sends[0]!.json());
    expect(await tenantEventCount(db, tenant.tenantId)).toBe(events);
    const other = await create();
    const reused = await call(tenant, 'POST', `/api/emails/${other.id}/send`, undefined, sendKey);
    expect(reused.statusCode).toBe(422);
    expect(reused.json().errors[0].field).toBe('Idempotency-Key');
  });

  it('answers 400 for a multipart body cut off in any part, and writes nothing', async () => {
    const tenant = { tenantId: randomUUID() };
    const full = multipart(content, sjisList);
    const other = multipart(content);
    const otherPart = Buffer.concat([
      other.payload.subarray(0, other.payload.length - `--${other.contentType.split('boundary=')[1]}--\r\n`.length),
      Buffer.from(
        `--${other.contentType.split('boundary=')[1]}\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\na,b\n1,2\n`,
      ),
    ]);
    for (const [payload, contentType] of [
      [full.payload.subarray(0, full.payload.length - 20), full.contentType],
      [otherPart, other.contentType],
      [other.payload.subarray(0, 120), other.contentType],
    ] as const) {
      const res = await call(tenant, 'POST', '/api/emails', { payload, contentType });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({ status: 400, request_id: expect.any(String) });
    }
    expect(await tenantEventCount(db, tenant.tenantId)).toBe(0);
  });

  it("answers 404 for another tenant's email on every call, writing nothing", async () => {
    const owner = { tenantId: randomUUID() };
    const other = { tenantId: randomUUID() };
    const created = (await call(owner, 'POST', '/api/emails', multipart(content, sjisList))).json();
    const url = `/api/emails/${created.id}`;
    for (const [method, path, body] of [
      ['PUT', url, multipart(content)],
      ['DELETE', url, undefined],
      ['POST', `${url}/copy`, undefined],
      ['POST', `${url}/send`, undefined],
      ['POST', `${url}/send_for_test`, { email_addresses: ['me@example.jp'] }],
      ['POST', `${url}/resume_send`, undefined],
    ] as const) {
      const res = await call(other, method, path, body);
      expect(res.statusCode, `${method} ${path}`).toBe(404);
    }
    expect(await tenantEventCount(db, other.tenantId)).toBe(0);
  });

  it('resumes a stopped send once; a draft, a running send or a resumed one is a 409 writing nothing', async () => {
    const tenant = { tenantId: randomUUID() };
    const created = (await call(tenant, 'POST', '/api/emails', multipart(content, sjisList))).json();
    const url = `/api/emails/${created.id}`;
    const refused = async (message: string) => {
      const before = await tenantEventCount(db, tenant.tenantId);
      const res = await call(tenant, 'POST', `${url}/resume_send`);
      expect(res.statusCode, message).toBe(409);
      expect(res.json().message).toContain('送信は止まっていません');
      expect(await tenantEventCount(db, tenant.tenantId)).toBe(before);
    };
    await refused('a draft');
    expect((await call(tenant, 'POST', `${url}/send`)).statusCode).toBe(202);
    await refused('a send under way');

    // The worker stops it (as the delivery reactor records it).
    const delivery = streamId('email_delivery', created.id);
    const stopId = randomUUID();
    await store.append(
      delivery,
      [
        {
          id: stopId,
          type: 'EmailSendParked',
          data: {
            email_id: created.id,
            reason: 'delivery_failed',
            error: 'Error: 421',
            parked_at: new Date().toISOString(),
          },
          metadata: newEventMetadata(tenant.tenantId),
        },
      ],
      { expectedRevision: 'any' },
    );
    const resumed = await call(tenant, 'POST', `${url}/resume_send`);
    expect(resumed.statusCode, resumed.body).toBe(202);
    expect(resumed.headers['x-position']).toBeTruthy();
    expect(resumed.json()).toMatchObject({ id: created.id, status: 'sent', delivery_stopped: null });
    const events = await store.readStream(delivery, { tenantId: tenant.tenantId });
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['EmailSendParked', expect.anything()],
      ['EmailSendResumed', { email_id: created.id, parked_event_id: stopId, resumed_at: expect.any(String) }],
    ]);
    await refused('already resumed');
  });

  it('refuses to send a draft without recipients', async () => {
    const tenant = { tenantId: randomUUID() };
    const created = (await call(tenant, 'POST', '/api/emails', multipart(content))).json();
    const res = await call(tenant, 'POST', `/api/emails/${created.id}/send`);
    expect(res.statusCode).toBe(422);
  });

  it("gives an uploaded image the public origin it is given (the embedded process's, from PORT), not the default", async () => {
    const served = await buildTestCommandApp(db, store, { publicOrigin: 'https://renkei.example.jp:3114' });
    try {
      const tenantId = randomUUID();
      const token = await served.testAuth.token({ tenantId, features: unrestrictedFeatures });
      const boundary = '----renkei' + randomUUID();
      const png = Buffer.from(
        'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
        'base64',
      );
      const uploaded = await served.app.inject({
        method: 'POST',
        url: '/api/uploaded_files',
        headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
        payload: Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="map.png"\r\nContent-Type: image/png\r\n\r\n`,
          ),
          png,
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]),
      });
      expect(uploaded.statusCode, uploaded.body).toBe(201);
      const image = uploaded.json() as { url: string };
      const form = multipart({ ...content, main_content: `<img src="${image.url.replace(/&/g, '&amp;')}" alt="">` });
      const created = await served.app.inject({
        method: 'POST',
        url: '/api/emails',
        headers: { authorization: `Bearer ${token}`, 'content-type': form.contentType },
        payload: form.payload,
      });
      expect(created.statusCode, created.body).toBe(201);
      const src = /<img[^>]*src="([^"]+)"/.exec((created.json() as { main_content: string }).main_content)![1]!;
      expect(new URL(src.replace(/&amp;/g, '&')).origin).toBe('https://renkei.example.jp:3114');
    } finally {
      await served.app.close();
    }
  });

  it('keeps an uploaded image of the body with a lasting public link, and refuses an image of another tenant or a non-image', async () => {
    const upload = async (tenantId: string, bytes: Buffer, filename: string) => {
      const boundary = '----renkei' + randomUUID();
      const payload = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
        ),
        bytes,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const res = await call({ tenantId }, 'POST', '/api/uploaded_files', {
        payload,
        contentType: `multipart/form-data; boundary=${boundary}`,
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json() as { id: string; url: string };
    };
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
      'base64',
    );
    const tenant = { tenantId: randomUUID() };
    const image = await upload(tenant.tenantId, png, 'map.png');
    // The editor inserts the upload's link as answered (relative, valid for 30 minutes).
    expect(image.url).toMatch(/^\/files\/[0-9a-f-]{36}\?expires=\d+&signature=/);
    const html = `<p>地図です</p><img src="${image.url.replace(/&/g, '&amp;')}" alt="案内図">`;
    const created = await call(tenant, 'POST', '/api/emails', multipart({ ...content, main_content: html }));
    expect(created.statusCode, created.body).toBe(201);
    const body = created.json() as { main_content: string };
    const src = /<img[^>]*src="([^"]+)"/.exec(body.main_content)![1]!.replace(/&amp;/g, '&');
    const url = new URL(src);
    expect(url.origin).toBe('https://localhost:3000');
    expect(url.pathname).toBe(`/files/${image.id}`);
    // Valid until 2100: a mail is read long after it went out.
    expect(url.searchParams.get('expires')).toBe('4102444800');
    expect(
      verifyFileUrl(
        fileUrlKey(),
        { tenantId: tenant.tenantId, id: image.id },
        url.searchParams.get('expires')!,
        url.searchParams.get('signature')!,
        new Date('2099-12-31T00:00:00Z'),
      ),
    ).toBe(true);
    expect(body.main_content).toContain('alt="案内図"');
    // Kept for good: never among the files the daily sweep removes.
    const storage = createPostgresFileStorage(db);
    const owned = await storage.filesOf(tenant.tenantId, [`email_image:${image.id}`]);
    expect(owned.get(`email_image:${image.id}`)?.map((f) => f.id)).toEqual([image.id]);
    await storage.removeUnreferenced(new Date(Date.now() + 7 * 24 * 3600 * 1000));
    expect(await storage.find(tenant.tenantId, [image.id])).toHaveLength(1);

    // Saved again (the lasting link as the editor shows it), the same HTML.
    const again = await call(
      tenant,
      'PUT',
      `/api/emails/${(created.json() as { id: string }).id}`,
      multipart({ ...content, main_content: body.main_content }),
      { 'if-match': '"0"' },
    );
    expect(again.statusCode, again.body).toBe(200);
    expect((again.json() as { main_content: string }).main_content).toBe(body.main_content);

    // Another tenant's image, an unknown file and a file that is not an image: 422 on the body, nothing written.
    const other = await upload(randomUUID(), png, 'other.png');
    const text = await upload(tenant.tenantId, Buffer.from('ただのテキスト'), 'note.txt');
    for (const link of [other.url, `/files/${randomUUID()}?expires=1&signature=x`, text.url]) {
      const before = await tenantEventCount(db, tenant.tenantId);
      const res = await call(
        tenant,
        'POST',
        '/api/emails',
        multipart({ ...content, main_content: `<img src="${link.replace(/&/g, '&amp;')}" alt="">` }),
      );
      expect(res.statusCode, link).toBe(422);
      expect((res.json() as { errors: { field: string }[] }).errors.map((e) => e.field)).toEqual([
        'stringified.main_content',
      ]);
      expect(await tenantEventCount(db, tenant.tenantId)).toBe(before);
    }
  });
});

describe('email attachments', () => {
  const upload = async (tenantId: string, bytes: Buffer, filename: string) => {
    const boundary = '----renkei' + randomUUID();
    const payload = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      bytes,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const res = await call({ tenantId }, 'POST', '/api/uploaded_files', {
      payload,
      contentType: `multipart/form-data; boundary=${boundary}`,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; url: string };
  };
  const pdf = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\n%%EOF\n');
  const storage = () => createPostgresFileStorage(db);
  const ownerOf = async (tenantId: string, fileId: string) => (await storage().find(tenantId, [fileId]))[0]?.owner;
  const withList = (json: object) => multipart(json, Buffer.from('email\na@example.jp\n'));
  const farFuture = () => new Date(Date.now() + 30 * 24 * 3600 * 1000);

  it('saves a file of the tenant, answers its name, keeps it from the sweep, and releases it when removed or deleted', async () => {
    const tenant = { tenantId: randomUUID() };
    const file = await upload(tenant.tenantId, pdf, '勉強会のご案内.pdf');
    const created = await call(tenant, 'POST', '/api/emails', withList({ ...content, attachment_id: file.id }));
    expect(created.statusCode, created.body).toBe(201);
    const email = created.json() as { id: string; attachment_url: string };
    expect(created.json()).toMatchObject({
      attachment_id: file.id,
      attachment_name: '勉強会のご案内.pdf',
      attachment_size: pdf.length,
    });
    expect(email.attachment_url).toMatch(new RegExp(`^/files/${file.id}\\?expires=\\d+&signature=`));
    expect(await ownerOf(tenant.tenantId, file.id)).toBe(`email:${email.id}`);
    // Referenced by a draft: the sweep leaves it however old.
    await storage().removeUnreferenced(farFuture());
    expect(await storage().find(tenant.tenantId, [file.id])).toHaveLength(1);

    // Saved again with it (the editor sends the id it shows): still the email's.
    const url = `/api/emails/${email.id}`;
    const kept = await call(tenant, 'PUT', url, multipart({ ...content, attachment_id: file.id }), {
      'if-match': '"0"',
    });
    expect(kept.statusCode, kept.body).toBe(200);
    expect(kept.json()).toMatchObject({ attachment_name: '勉強会のご案内.pdf', version: 0 });

    // The copy gets its own file (same name and bytes): a file belongs to one record.
    const copied = await call(tenant, 'POST', `${url}/copy`);
    expect(copied.statusCode, copied.body).toBe(201);
    const copy = copied.json() as { id: string; attachment_id: string; attachment_name: string };
    expect(copy.attachment_id).not.toBe(file.id);
    expect(copy.attachment_name).toBe('勉強会のご案内.pdf');
    expect(await ownerOf(tenant.tenantId, copy.attachment_id)).toBe(`email:${copy.id}`);
    const [copiedFile] = await storage().find(tenant.tenantId, [copy.attachment_id]);
    const bytes: Buffer[] = [];
    for await (const chunk of storage().read(copiedFile!)) bytes.push(Buffer.from(chunk));
    expect(Buffer.concat(bytes).equals(pdf)).toBe(true);

    // Removed from the draft: unreferenced again (swept a day later), the answer names nothing.
    const removed = await call(tenant, 'PUT', url, multipart({ ...content, attachment_id: null }), {
      'if-match': '"0"',
    });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(removed.json()).toMatchObject({ attachment_id: null, attachment_name: null, attachment_url: null });
    expect(await ownerOf(tenant.tenantId, file.id)).toBeNull();

    // The copy's draft deleted: its file is released too.
    const deleted = await call(tenant, 'DELETE', `/api/emails/${copy.id}`, undefined, { 'if-match': '"0"' });
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect(await ownerOf(tenant.tenantId, copy.attachment_id)).toBeNull();
    expect(await storage().removeUnreferenced(farFuture())).toBeGreaterThanOrEqual(2);
    expect(await storage().find(tenant.tenantId, [file.id, copy.attachment_id])).toEqual([]);
  });

  it("answers 422 on stringified.attachment_id for an unknown file, another tenant's, another record's or one over 3 MB, writing nothing", async () => {
    const tenant = { tenantId: randomUUID() };
    const foreign = await upload(randomUUID(), pdf, 'other.pdf');
    const mine = await upload(tenant.tenantId, pdf, 'mine.pdf');
    const holder = await call(tenant, 'POST', '/api/emails', withList({ ...content, attachment_id: mine.id }));
    expect(holder.statusCode, holder.body).toBe(201);
    const big = await upload(tenant.tenantId, Buffer.alloc(3 * 1024 * 1024 + 1, 0x41), '大きな資料.pdf');
    const cases: [string, string][] = [
      [randomUUID(), '添付ファイルが見つかりません'],
      [foreign.id, '添付ファイルが見つかりません'],
      [mine.id, 'このファイルは他の記録に添付されています'],
      [big.id, '添付ファイルが大きすぎます（上限 3 MB）'],
    ];
    for (const [id, message] of cases) {
      const before = await tenantEventCount(db, tenant.tenantId);
      const res = await call(tenant, 'POST', '/api/emails', withList({ ...content, attachment_id: id }));
      expect(res.statusCode, message).toBe(422);
      expect(res.json().errors).toEqual([
        { field: 'stringified.attachment_id', message: expect.stringContaining(message) },
      ]);
      expect(await tenantEventCount(db, tenant.tenantId)).toBe(before);
    }
    // Nothing claimed the refused files.
    expect(await ownerOf(tenant.tenantId, big.id)).toBeNull();
  });

  it('refuses to send a draft whose attachment is gone, rather than the campaign stopping in the worker', async () => {
    const tenant = { tenantId: randomUUID() };
    const file = await upload(tenant.tenantId, pdf, '資料.pdf');
    const created = await call(tenant, 'POST', '/api/emails', withList({ ...content, attachment_id: file.id }));
    expect(created.statusCode, created.body).toBe(201);
    await sql`DELETE FROM files.stored_files WHERE id = ${file.id}`.execute(db.kysely);
    const before = await tenantEventCount(db, tenant.tenantId);
    const sent = await call(tenant, 'POST', `/api/emails/${(created.json() as { id: string }).id}/send`);
    expect(sent.statusCode, sent.body).toBe(422);
    expect(sent.json().errors[0]).toMatchObject({ field: 'attachment_id' });
    expect(await tenantEventCount(db, tenant.tenantId)).toBe(before);
  });
});
