import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, newEventMetadata, type EventStore, type RecordedEvent } from '@renkei/event-store';
import { createPostgresFileStorage, type FileStorage, type StoredFile } from '@renkei/file-storage';
import { createUploadedFilesReactor, removeUnreferencedFiles } from './uploaded-files.reactor.ts';
import { blankCommunication } from '@renkei/domain/testing';

let db: TestDatabase;
let store: EventStore;
let storage: FileStorage;

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  storage = createPostgresFileStorage(db);
});

afterAll(async () => {
  await store?.close();
  await db?.close();
});

const put = (tenantId: string, name: string) =>
  storage.put({ id: randomUUID(), tenantId, filename: name, contentType: 'image/jpeg', createdBy: randomUUID() }, [
    Buffer.from('bytes'),
  ]);

const fields = (id: string, attachmentIds: string[]) =>
  blankCommunication(
    { communication_id: id, medical_institution_id: randomUUID(), user_id: randomUUID(), acted_date: '2026-03-01' },
    { attachment_ids: attachmentIds },
  );

async function append(tenantId: string, id: string, type: string, data: object): Promise<RecordedEvent> {
  await store.append(`communication-${id}`, [{ type, data, metadata: newEventMetadata(tenantId) }], {
    expectedRevision: 'any',
  });
  const events = await store.readStream(`communication-${id}`, { tenantId });
  return events.at(-1)!;
}

/** Moves a file's "unreferenced since" back, as if that time had passed. */
const age = (fileId: string, hours: number) =>
  sql`UPDATE files.stored_files SET unreferenced_since = now() - make_interval(hours => ${hours})
    WHERE id = ${fileId}`.execute(db.kysely);

it('links files from the events, in any replay, and removes only files unreferenced for a day', async () => {
  const reactor = createUploadedFilesReactor();
  const tenantId = randomUUID();
  const communication = randomUUID();
  const [kept, dropped, neverUsed, fresh] = (await Promise.all(
    ['kept', 'dropped', 'never', 'fresh'].map((n) => put(tenantId, n)),
  )) as [StoredFile, StoredFile, StoredFile, StoredFile];
  const created = await append(tenantId, communication, 'CommunicationCreated', {
    ...fields(communication, [kept.id, dropped.id]),
    tasks: [],
  });
  const updated = await append(tenantId, communication, 'CommunicationUpdated', fields(communication, [kept.id]));
  await reactor.handle([created, updated], { db, store });
  // A replay of the older event moves nothing back.
  await reactor.handle([created], { db, store });
  const owner = `communication:${communication}`;
  expect((await storage.filesOf(tenantId, [owner])).get(owner)!.map((f) => f.id)).toEqual([kept.id]);

  for (const f of [kept, dropped, neverUsed]) await age(f.id, 25);
  await age(fresh.id, 23);
  // `kept` was referenced all along: its age does not matter.
  await sql`UPDATE files.stored_files SET unreferenced_since = now() - interval '30 days' WHERE id = ${kept.id}`.execute(
    db.kysely,
  );
  expect(await removeUnreferencedFiles(storage)).toBe(2);
  const left = await storage.find(tenantId, [kept.id, dropped.id, neverUsed.id, fresh.id]);
  expect(left.map((f) => f.filename).sort()).toEqual(['fresh', 'kept']);
  const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM files.file_chunks
    WHERE file_id = ANY(${sql.val([dropped.id, neverUsed.id])}::uuid[])`.execute(db.kysely);
  expect(Number(rows[0]!.n)).toBe(0);

  // Deleting the record releases its files; a day later they go.
  const deleted = await append(tenantId, communication, 'CommunicationDeleted', {
    communication_id: communication,
    medical_institution_id: randomUUID(),
  });
  await reactor.handle([deleted], { db, store });
  expect((await storage.find(tenantId, [kept.id]))[0]!.owner).toBeNull();
  expect(await removeUnreferencedFiles(storage, new Date(Date.now() + 25 * 60 * 60 * 1000))).toBeGreaterThanOrEqual(2);
  expect(await storage.find(tenantId, [kept.id, fresh.id])).toEqual([]);
});

it("keeps an email campaign's attachment from the events, and releases it when removed or the draft deleted", async () => {
  const reactor = createUploadedFilesReactor();
  const tenantId = randomUUID();
  const emailId = randomUUID();
  const [first, second] = (await Promise.all(['first.pdf', 'second.pdf'].map((n) => put(tenantId, n)))) as [
    StoredFile,
    StoredFile,
  ];
  const draft = (attachmentId: string | null) => ({
    email_id: emailId,
    title: '案内',
    sender_name: '地域連携室',
    sender_email: 'renkei@example.jp',
    main_content: '<p>本文</p>',
    attachment_id: attachmentId,
    doctor_ids: [],
    recipients: [],
    invalid_recipients: [],
  });
  const appendEmail = async (type: string, data: object) => {
    await store.append(`email-${emailId}`, [{ type, data, metadata: newEventMetadata(tenantId) }], {
      expectedRevision: 'any',
    });
    return (await store.readStream(`email-${emailId}`, { tenantId })).at(-1)!;
  };
  const owner = `email:${emailId}`;
  const created = await appendEmail('EmailCreated', draft(first.id));
  await reactor.handle([created], { db, store });
  expect((await storage.filesOf(tenantId, [owner])).get(owner)!.map((f) => f.id)).toEqual([first.id]);
  // Referenced by the draft: the sweep leaves it however long it was unreferenced before.
  await age(first.id, 24 * 30);
  await removeUnreferencedFiles(storage);
  expect(await storage.find(tenantId, [first.id])).toHaveLength(1);

  // Replaced: the new one is the email's, the old one unreferenced (and a replay moves nothing back).
  const updated = await appendEmail('EmailUpdated', draft(second.id));
  await reactor.handle([updated, created], { db, store });
  expect((await storage.filesOf(tenantId, [owner])).get(owner)!.map((f) => f.id)).toEqual([second.id]);
  expect((await storage.find(tenantId, [first.id]))[0]!.owner).toBeNull();

  // Sending and test sends change nothing; deleting the draft releases it.
  const deleted = await appendEmail('EmailDeleted', { email_id: emailId });
  await reactor.handle([deleted], { db, store });
  expect((await storage.find(tenantId, [second.id]))[0]!.owner).toBeNull();
  await age(first.id, 25);
  await age(second.id, 25);
  expect(await removeUnreferencedFiles(storage)).toBeGreaterThanOrEqual(2);
  expect(await storage.find(tenantId, [first.id, second.id])).toEqual([]);
});
