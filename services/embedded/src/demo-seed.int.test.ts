import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLocalJWKSet } from 'jose';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type Database } from '@renkei/db';
import { createPostgresEventStore, type EventStore } from '@renkei/event-store';
import { getJwks, issuerOf, loadIdentityConfig } from '@renkei/identity';
import type { AuthOptions } from '@renkei/service-kit';
import { seedDemo } from './demo-seed.ts';

let db: Database;
let store: EventStore;
let dataDir: string;

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-demo-seed-'));
});

afterAll(async () => {
  await store?.close();
  await db?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

const eventCounts = async (tenantId: string) => {
  const { rows } = await sql<{ type: string; n: string }>`
    SELECT type, count(*) AS n FROM es.events WHERE tenant_id = ${tenantId} GROUP BY type ORDER BY type`.execute(
    db.kysely,
  );
  return Object.fromEntries(rows.map((r) => [r.type, Number(r.n)]));
};

describe('demo seed', { timeout: 300_000 }, () => {
  it('writes the demo CRM data through the commands once; a second start adds nothing', async () => {
    const identityConfig = loadIdentityConfig({}, { dataDir, publicOrigin: 'https://localhost:1', smtpCatcherPort: 0 });
    // The key set is read at each check: the provider's first key is made when the seed mints its tokens.
    const commandAuth: AuthOptions = {
      issuer: issuerOf(identityConfig),
      audience: identityConfig.resources.command,
      jwks: async (header, token) => createLocalJWKSet(await getJwks({ db }))(header, token),
    };
    const options = { db, store, dataDir, institutionCount: 400, crm: { identityConfig, commandAuth } };
    const first = await seedDemo(options);
    expect(first?.institutions?.insertedCount).toBe(400);
    expect(first?.crmRequests).toBeGreaterThan(30);
    const tenantId = first!.tenantId;
    const counts = await eventCounts(tenantId);
    expect(counts).toMatchObject({ PhaseMastersReplaced: 1, TagCreated: 8, MedicalInstitutionLabelCreated: 2 });
    for (const type of [
      'MedicalInstitutionTagsChanged',
      'MedicalInstitutionPhaseChanged',
      'MedicalInstitutionMemoChanged',
      'MedicalInstitutionLabelValuesChanged',
    ])
      expect(counts[type], type).toBeGreaterThan(0);
    // Made by the demo accounts, as if they had used the screens.
    const { rows: by } = await sql<{ username: string }>`
      SELECT DISTINCT a.username FROM es.events e JOIN identity.accounts a ON a.id = (e.metadata->>'account_id')::uuid
       WHERE e.tenant_id = ${tenantId} AND e.type LIKE 'MedicalInstitution%Changed' ORDER BY a.username`.execute(
      db.kysely,
    );
    expect(by.map((r) => r.username).sort()).toEqual(['佐藤 美咲', '高橋 健太'].sort());
    // A year of communications with labels, tasks (some done), comments and likes.
    expect(counts).toMatchObject({ CommunicationCreated: 2400, CommunicationLabelCreated: 2 });
    for (const type of ['TaskUpdated', 'CommunicationCommentAdded', 'CommunicationLiked'])
      expect(counts[type], type).toBeGreaterThan(0);
    // Partner feedback in groups, heard on those communications.
    expect(counts).toMatchObject({ VocCreated: 40, VocGroupsReplaced: 1 });
    expect(counts).toMatchObject({ ActionListCreated: 3, ActionListStatusChanged: 1, ActionListItemsAdded: 3 });
    // A few visits with a photo (some with a PDF too), each held by its record.
    const { rows: files } = await sql<{ content_type: string; n: string }>`
      SELECT content_type, count(*) AS n FROM files.stored_files WHERE tenant_id = ${tenantId} AND referenced
       GROUP BY content_type ORDER BY content_type`.execute(db.kysely);
    expect(files.map((f) => f.content_type)).toEqual(['application/pdf', 'image/png']);
    // The hospital's own departments, before its referral lists: their 受診科 match them by name.
    expect(counts).toMatchObject({ OwnDepartmentsReplaced: 1 });
    const { rows: uploads } = await sql<{ type: string }>`
      SELECT type FROM es.events WHERE tenant_id = ${tenantId}
         AND type IN ('OwnDepartmentsReplaced', 'ReferralDataImportRequested') ORDER BY global_position LIMIT 1`.execute(
      db.kysely,
    );
    expect(uploads[0]?.type).toBe('OwnDepartmentsReplaced');
    // Segments, so institutions are not all 「その他」.
    const { rows: segmentation } = await sql<{ data: { segments: { label: string }[] } }>`
      SELECT data FROM es.events WHERE tenant_id = ${tenantId} AND type = 'SegmentationSettingReplaced'`.execute(
      db.kysely,
    );
    expect(segmentation.map((e) => e.data.segments.map((s) => s.label))).toEqual([
      ['A 重点連携先', 'B 主要連携先', 'C 育成対象'],
    ]);

    expect(await seedDemo(options)).toBeUndefined();
    expect(await eventCounts(tenantId)).toEqual(counts);
  });

  it('a start that stopped half-way finishes the rest without repeating what was done', async () => {
    const { rows } = await sql<{ id: string }>`SELECT id FROM identity.tenants WHERE slug = 'demo'`.execute(db.kysely);
    const tenantId = rows[0]!.id;
    const before = await eventCounts(tenantId);
    // Undo the last writes as a crash would have left them: the finishing mark and one doctor never happened.
    const { rows: doctorStreams } = await sql<{ stream_id: string }>`
      SELECT stream_id FROM es.events WHERE tenant_id = ${tenantId} AND type = 'DoctorAdded'
       ORDER BY global_position DESC LIMIT 1`.execute(db.kysely);
    const { rows: lastTags } = await sql<{ stream_id: string }>`
      SELECT stream_id FROM es.events WHERE tenant_id = ${tenantId} AND type = 'MedicalInstitutionTagsChanged'
       ORDER BY global_position DESC LIMIT 1`.execute(db.kysely);
    await sql`DELETE FROM es.events WHERE stream_id IN (${doctorStreams[0]!.stream_id}, ${lastTags[0]!.stream_id})`.execute(
      db.kysely,
    );
    const identityConfig = loadIdentityConfig({}, { dataDir, publicOrigin: 'https://localhost:1', smtpCatcherPort: 0 });
    const commandAuth: AuthOptions = {
      issuer: issuerOf(identityConfig),
      audience: identityConfig.resources.command,
      jwks: async (header, token) => createLocalJWKSet(await getJwks({ db }))(header, token),
    };
    await seedDemo({ db, store, dataDir, institutionCount: 400, crm: { identityConfig, commandAuth } });
    const after = await eventCounts(tenantId);
    expect(after.DoctorAdded).toBe(before.DoctorAdded);
    expect(after.TagCreated).toBe(8);
    expect(after.PhaseMastersReplaced).toBe(1);
    expect(after.MedicalInstitutionLabelCreated).toBe(2);
  });
});
