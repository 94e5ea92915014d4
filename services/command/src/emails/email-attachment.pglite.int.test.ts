import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase, type Database } from '@renkei/db';
import { createPostgresFileStorage, type FileStorage } from '@renkei/file-storage';
import { copyAttachment } from './email-attachment.ts';

// The embedded default has one connection: copying a campaign's file must not read the source through
// the pool while the copy's transaction holds that connection (it hung the whole process).
let dataDir: string;
let db: Database;
let storage: FileStorage;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-email-attachment-pglite-'));
  db = await openDatabase({ dataDir });
  storage = createPostgresFileStorage(db);
  await storage.migrate();
});

afterAll(async () => {
  await db?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it("copies an email's attachment on the embedded database: the same name and bytes under the copy's id", async () => {
  const tenantId = randomUUID();
  // Larger than one storage chunk (256 KiB), so the copy reads several.
  const bytes = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(600 * 1024, 0x41), Buffer.from('%%EOF\n')]);
  const source = await storage.put(
    { id: randomUUID(), tenantId, filename: '勉強会資料.pdf', contentType: 'application/pdf', createdBy: randomUUID() },
    [bytes],
  );
  const copyId = await copyAttachment(storage, tenantId, randomUUID(), source.id, randomUUID());
  expect(copyId).not.toBeNull();
  expect(copyId).not.toBe(source.id);
  const [copy] = await storage.find(tenantId, [copyId!]);
  expect(copy).toMatchObject({ filename: '勉強会資料.pdf', contentType: 'application/pdf', size: bytes.length });
  const read: Uint8Array[] = [];
  for await (const chunk of storage.read(copy!)) read.push(chunk);
  expect(Buffer.concat(read).equals(bytes)).toBe(true);
}, 30_000);
