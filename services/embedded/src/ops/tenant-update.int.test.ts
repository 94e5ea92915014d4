import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, streamId, type EventStore } from '@renkei/event-store';
import { generateInstitutionMaster, importInstitutionMaster } from '@renkei/institution-master';
import { identityDb, loadIdentityConfig } from '@renkei/identity';
import { databaseOperations, type OpsContext } from './operations.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const cli = path.join(repoRoot, 'services/embedded/src/ops/cli.ts');

let db: TestDatabase;
let store: EventStore;
let ctx: OpsContext;
let dataDir: string;
let tenantId: string;
let institutions: { id: string; name: string }[];

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-ops-tenant-'));
  ctx = {
    db,
    store,
    identityConfig: loadIdentityConfig({}, { dataDir }),
    projections: [],
    insideServer: false,
  };
  const file = path.join(dataDir, 'master.csv');
  await generateInstitutionMaster(file, { count: 5, seed: 7 });
  await importInstitutionMaster(db, file);
  institutions = (
    await db.pool.query<{ id: string; name: string }>('SELECT id, name FROM ref.medical_institutions ORDER BY code')
  ).rows.map((r) => ({ id: r.id, name: r.name }));
  const added = await databaseOperations['tenant.add'](ctx, {
    slug: 'minato',
    name: 'みなと病院',
    owner: 'owner@minato.example',
    password: 'owner-pass-1',
    plan: 'starter',
  });
  tenantId = /tenant ([0-9a-f-]{36})/.exec(added)![1]!;
});

afterAll(async () => {
  await store?.close();
  await db?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Runs `pnpm ops …` as an operator would, against the test database (no running server to relay to). */
async function ops(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', cli, ...args], {
      cwd: repoRoot,
      env: { ...process.env, DATABASE_URL: db.url, RENKEI_DATA_DIR: dataDir },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const tenantRow = () =>
  identityDb(db).selectFrom('identity.tenants').selectAll().where('slug', '=', 'minato').executeTakeFirstOrThrow();
const lastEvent = async () => (await store.readStream(streamId('tenant', tenantId), { tenantId })).at(-1)!;

describe('pnpm ops tenant update', () => {
  it('changes plan, phases, tag limit, group institutions and switched-off features, publishing the settings', async () => {
    const [a, b] = institutions;
    const run = await ops(
      'tenant',
      'update',
      'minato',
      '--plan',
      'growth',
      '--enabled-phase',
      'true',
      '--max-tag-count',
      '30',
      '--group-institutions',
      `${a!.id}, ${b!.id}`,
      '--features-off',
      'tags,labels',
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('テナント「minato」の設定を変更しました。');
    expect(run.stdout).toContain(`グループ医療機関: ${a!.name} (${a!.id})、${b!.name} (${b!.id})`);
    expect(await tenantRow()).toMatchObject({
      plan: 'growth',
      enabled_phase: true,
      max_tag_count: 30,
      feature_overrides: { tags: false, labels: false },
      group_medical_institutions: [a, b],
    });
    const event = await lastEvent();
    expect(event).toMatchObject({
      type: 'TenantSettingsChanged',
      data: { plan: 'growth', enabled_phase: true, group_medical_institution_ids: [a!.id, b!.id] },
    });
    expect((event.data as { features: string[] }).features).not.toContain('tags');
  });

  it('lifts the tag limit with none, and clears lists given empty', async () => {
    const run = await databaseOperations['tenant.update'](ctx, {
      slug: 'minato',
      maxTagCount: null,
      groupInstitutions: [],
      featuresOff: [],
    });
    expect(run).toContain('タグ数上限: なし');
    expect(await tenantRow()).toMatchObject({
      plan: 'growth',
      max_tag_count: null,
      feature_overrides: {},
      group_medical_institutions: [],
    });
  });

  it('refuses bad input with the reason and changes nothing', async () => {
    const before = await tenantRow();
    const unknown = '00000000-0000-4000-8000-000000000000';
    const rejected = await ops('tenant', 'update', 'minato', '--plan', 'basic', '--group-institutions', unknown);
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toContain(`group_medical_institution_ids.0: 医療機関マスタにない医療機関です: ${unknown}`);
    await expect(
      databaseOperations['tenant.update'](ctx, { slug: 'minato', featuresOff: ['tags', 'nothing'] }),
    ).rejects.toMatchObject({ status: 422, extra: { errors: [{ field: 'features_off.1' }] } });
    await expect(databaseOperations['tenant.update'](ctx, { slug: 'minato', plan: 'gold' })).rejects.toMatchObject({
      status: 422,
      extra: { errors: [{ field: 'plan' }] },
    });
    await expect(databaseOperations['tenant.update'](ctx, { slug: 'minato' })).rejects.toMatchObject({ status: 422 });
    await expect(databaseOperations['tenant.update'](ctx, { slug: 'nowhere', plan: 'basic' })).rejects.toMatchObject({
      status: 404,
    });
    expect(await tenantRow()).toEqual(before);
  });

  it('explains a malformed flag before opening the database', async () => {
    const run = await ops('tenant', 'update', 'minato', '--enabled-phase', 'yes');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--enabled-phase には true か false を指定してください。');
    expect(run.stderr).toContain('pnpm ops tenant update <slug>');
  });
});
