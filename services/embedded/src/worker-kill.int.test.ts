import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { medicalInstitutionMemoAggregate } from '@renkei/domain';
import {
  comparePositions,
  createPostgresEventStore,
  newEventMetadata,
  streamId,
  type EventStore,
} from '@renkei/event-store';
import { buildInstitutionCode, importInstitutionMaster, institutionIdFromCode } from '@renkei/institution-master';
import { catchUpProjections, requestRebuild } from '@renkei/projections';
import { buildTestCommandApp, injectAs } from '@renkei/command/testing';
import type { TestAuth } from '@renkei/service-kit/testing';
import { projections } from '@renkei/worker';

// kill -9 of the standalone worker (services/worker/src/main.ts, the production process) at random
// moments, during an import and during a rebuild of every projection. After a restart every read
// model must equal a clean rebuild from the events, and every import row must be stored exactly once.
// KILL_TEST_KILLS sets the number of kills of each phase (default 20, as the reliability issue asks).
const KILLS = Number(process.env.KILL_TEST_KILLS ?? 20);
const INSTITUTIONS = 300;
const ROWS = 12_000;
const FILLER_EVENTS = 40_000;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const WORKER = path.join(root, 'services/worker/src/main.ts');
const code = (n: number) =>
  buildInstitutionCode({ prefectureCode: 22, scoreTable: 1, districtNumber: 3, institutionNumber: 2000 + n });

let db: TestDatabase;
let store: EventStore;
let app: FastifyInstance;
let testAuth: TestAuth;
let dataDir: string;
const children = new Set<ChildProcess>();
const owner = { tenantId: randomUUID(), accountId: randomUUID(), role: 'owner' as const };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function startWorker(): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'fatal', KAFKA_BROKERS: '' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/**
 * Starts the worker and kills it a random moment after it has made progress (the start-up of a
 * process takes seconds on a busy machine: a kill on a timer would mostly hit the start-up). True
 * when the kill fell while there was still work to do.
 */
async function killAfterProgress(
  progress: () => Promise<number>,
  done: () => Promise<boolean>,
  maxDelayMs = 400,
): Promise<boolean> {
  const before = await progress();
  const child = startWorker();
  try {
    const end = Date.now() + 300_000;
    while ((await progress()) === before && !(await done())) {
      if (Date.now() > end) throw new Error('the worker made no progress for five minutes');
      await sleep(20);
    }
    await sleep(Math.random() * maxDelayMs);
  } finally {
    await killHard(child);
  }
  return !(await done());
}

/** Per read model (every view of the rm schema): its row count and a digest of all its rows. */
async function readModelDigests(): Promise<Record<string, string>> {
  const { rows: views } = await sql<{ name: string }>`
    SELECT table_name AS name FROM information_schema.views WHERE table_schema = 'rm' ORDER BY table_name`.execute(
    db.kysely,
  );
  const digests: Record<string, string> = {};
  for (const { name } of views) {
    const { rows } = await sql<{ n: string; digest: string | null }>`
      SELECT count(*)::text AS n, md5(string_agg(t::text, '|' ORDER BY t::text)) AS digest
        FROM ${sql.table(`rm.${name}`)} t`.execute(db.kysely);
    digests[name] = `${rows[0]!.n}:${rows[0]!.digest ?? ''}`;
  }
  return digests;
}

/** Every live projection has passed the store's head, and no rebuild is under way. */
async function projectionsCaughtUp(): Promise<boolean> {
  const head = await store.headPosition();
  const { rows } = await sql<{ state: string; p1: string; p2: string }>`
    SELECT state, position_primary::text AS p1, position_secondary::text AS p2 FROM rm.projection_checkpoints`.execute(
    db.kysely,
  );
  return (
    rows.length === projections.length &&
    rows.every(
      (r) => r.state === 'live' && comparePositions({ primary: BigInt(r.p1), secondary: BigInt(r.p2) }, head) >= 0,
    )
  );
}

async function until(check: () => Promise<boolean>, ms = 300_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(50);
  }
}

async function rebuildCleanly(): Promise<Record<string, string>> {
  for (const p of projections) await requestRebuild(db, p.name);
  // A request is noticed at most a second after it is filed.
  await sleep(1100);
  await catchUpProjections({ db, store, projections, until: await store.headPosition(), timeoutMs: 300_000 });
  return readModelDigests();
}

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-kill-'));
  process.env.RENKEI_DATA_DIR = dataDir;
  ({ app, testAuth } = await buildTestCommandApp(db, store));
  const master = path.join(dataDir, 'master.csv');
  fs.writeFileSync(
    master,
    Array.from(
      { length: INSTITUTIONS },
      (_, i) => `${code(i + 1)},連携クリニック${i + 1},,,静岡県浜松市中央区元城町${i + 1},,,,診療所,0,内科,,,開設`,
    ).join('\n'),
  );
  await importInstitutionMaster(db, master);
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await app?.close();
  await store?.close();
  await db?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('the worker under kill -9', () => {
  let importId = '';

  it('an import killed at random moments stores every row exactly once, and the read models equal a clean rebuild', async () => {
    const label = await injectAs({ app, testAuth }, owner, 'POST', '/api/medical_institution_labels', {
      name: '紹介件数',
      component_type: 'integer',
    });
    expect(label.statusCode, label.body).toBe(201);
    // Each row gives its institution a larger value, so every row is one change.
    const lines = ['医療機関コード,紹介件数'];
    for (let i = 0; i < ROWS; i++) lines.push(`${code((i % INSTITUTIONS) + 1)},${i + 1}`);
    const uploadValues = async () => {
      const boundary = `----renkei${randomUUID()}`;
      const upload = await app.inject({
        method: 'POST',
        url: '/api/imports/medical_institution_label_values',
        headers: {
          authorization: `Bearer ${await testAuth.token(owner)}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
        },
        payload: Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="values.csv"\r\nContent-Type: text/csv\r\n\r\n`,
          ),
          Buffer.from(lines.join('\r\n')),
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]),
      });
      expect(upload.statusCode, upload.body).toBe(202);
      return upload.json().id as string;
    };

    const finished = async () => {
      const { rows } = await sql`
        SELECT 1 FROM es.events WHERE type = 'LabelValueImportFinished' AND data->>'import_id' = ${importId}`.execute(
        db.kysely,
      );
      return rows.length > 0;
    };
    const chunks = async () => {
      const { rows } = await sql<{ n: string }>`
        SELECT count(*)::text AS n FROM es.events
         WHERE type = 'MedicalInstitutionLabelValuesImported' AND data->>'import_id' = ${importId}`.execute(db.kysely);
      return Number(rows[0]!.n);
    };
    let kills = 0;
    let midImport = 0;
    // The import takes well under a second on a quiet machine, so a kill can miss it: then the same
    // file is imported again (a new import, the same values), until a kill has fallen inside one.
    for (let attempt = 0; attempt < 5 && midImport === 0; attempt++) {
      importId = await uploadValues();
      while (kills < KILLS * (attempt + 1) && !(await finished())) {
        if (await killAfterProgress(chunks, finished, 150)) midImport += 1;
        kills += 1;
      }
    }
    // At least one kill fell while the import was recording its chunks.
    expect(midImport).toBeGreaterThan(0);
    const survivor = startWorker();
    try {
      await until(async () => (await finished()) && (await projectionsCaughtUp()));
    } finally {
      await killHard(survivor);
    }

    // Every row recorded once, in one chunk event each chunk.
    const { rows } = await sql<{ n: string; ids: string; chunks: string; chunk_numbers: string }>`
      SELECT count(*)::text AS n, count(DISTINCT r->>'row_number')::text AS ids,
             count(DISTINCT e.event_id)::text AS chunks, count(DISTINCT e.data->>'chunk')::text AS chunk_numbers
        FROM es.events e CROSS JOIN jsonb_array_elements(e.data->'rows') r
       WHERE e.type = 'MedicalInstitutionLabelValuesImported' AND e.data->>'import_id' = ${importId}`.execute(
      db.kysely,
    );
    expect(Number(rows[0]!.n)).toBe(ROWS);
    expect(Number(rows[0]!.ids)).toBe(ROWS);
    expect(Number(rows[0]!.chunks)).toBe(Number(rows[0]!.chunk_numbers));
    const record = await sql<{ status: string; imported_row_count: number; failed_row_count: number }>`
      SELECT status, imported_row_count, failed_row_count FROM rm.label_value_imports WHERE id = ${importId}`.execute(
      db.kysely,
    );
    expect(record.rows[0]).toMatchObject({ status: 'completed', imported_row_count: ROWS, failed_row_count: 0 });
    // The last row of each institution is its value.
    const values = await sql<{ medical_institution_id: string; integer_value: number }>`
      SELECT medical_institution_id, integer_value FROM rm.mi_label_values WHERE tenant_id = ${owner.tenantId}`.execute(
      db.kysely,
    );
    expect(values.rows).toHaveLength(INSTITUTIONS);
    const expected = new Map(
      Array.from({ length: INSTITUTIONS }, (_, k) => [institutionIdFromCode(code(k + 1)), ROWS - INSTITUTIONS + k + 1]),
    );
    for (const v of values.rows) expect(v.integer_value).toBe(expected.get(v.medical_institution_id));

    const afterKills = await readModelDigests();
    expect(await rebuildCleanly()).toEqual(afterKills);
    console.log(`[kill -9] import: ${kills} kills (${midImport} while chunks were being recorded) over ${ROWS} rows`);
  });

  it('a rebuild of every projection killed at random moments ends equal to a clean rebuild', async () => {
    // Enough events that the rebuild takes several seconds, so the kills fall inside it.
    const institutionIds = Array.from({ length: INSTITUTIONS }, (_, k) => institutionIdFromCode(code(k + 1)));
    for (let done = 0; done < FILLER_EVENTS; done += 100) {
      await store.append(
        streamId(medicalInstitutionMemoAggregate, randomUUID()),
        Array.from({ length: 100 }, (_, i) => ({
          type: 'MedicalInstitutionMemoChanged',
          data: {
            medical_institution_id: institutionIds[(done + i) % INSTITUTIONS]!,
            content: `面談記録 ${done + i}`,
            previous_content: '',
          },
          metadata: newEventMetadata(owner.tenantId),
        })),
        { expectedRevision: 'no_stream' },
      );
    }
    await catchUpProjections({ db, store, projections, until: await store.headPosition(), timeoutMs: 300_000 });
    const reference = await readModelDigests();

    for (const p of projections) await requestRebuild(db, p.name);
    const rebuilding = async () => {
      const { rows } = await sql`
        SELECT 1 FROM rm.projection_checkpoints WHERE state = 'rebuilding'
        UNION ALL SELECT 1 FROM rm.projection_rebuild_requests WHERE completed_at IS NULL`.execute(db.kysely);
      return rows.length > 0;
    };
    const processed = async () => {
      const { rows } = await sql<{ n: string }>`
        SELECT coalesce(sum(events_processed), 0)::text AS n FROM rm.projection_checkpoints WHERE state = 'rebuilding'`.execute(
        db.kysely,
      );
      return Number(rows[0]!.n);
    };
    let kills = 0;
    let midRebuild = 0;
    while (kills < KILLS && (await rebuilding())) {
      if (await killAfterProgress(processed, async () => !(await rebuilding()))) midRebuild += 1;
      kills += 1;
    }
    // At least one kill fell while a new build was being filled.
    expect(midRebuild).toBeGreaterThan(0);
    const survivor = startWorker();
    try {
      await until(async () => !(await rebuilding()) && (await projectionsCaughtUp()));
    } finally {
      await killHard(survivor);
    }
    expect(await readModelDigests()).toEqual(reference);
    // No build's tables are left behind: one physical table per view.
    const { rows } = await sql<{ n: string }>`
      SELECT count(*)::text AS n FROM information_schema.tables WHERE table_schema = 'rm' AND table_type = 'BASE TABLE'
         AND table_name ~ '_v[0-9]+(_r[0-9]+)?$'`.execute(db.kysely);
    const views = await sql<{ n: string }>`
      SELECT count(*)::text AS n FROM information_schema.views WHERE table_schema = 'rm'`.execute(db.kysely);
    expect(rows[0]!.n).toBe(views.rows[0]!.n);
    console.log(
      `[kill -9] rebuild: ${kills} kills (${midRebuild} while filling a build) over ${FILLER_EVENTS + ROWS} events`,
    );
  });

  it('a referral-list import and an inpatient EF import killed at random moments store every row once and merge exactly', async () => {
    // A tenant of its own: its figures are counted from scratch.
    const hospital = { tenantId: randomUUID(), accountId: randomUUID(), role: 'owner' as const };
    const REFERRALS = 6_000;
    const STAYS = 3_000;
    const EF_ROWS_PER_STAY = 11;
    const day = (offset: number) => {
      const d = new Date(Date.UTC(2024, 3, 1 + offset));
      return d.toISOString().slice(0, 10);
    };
    const compact = (iso: string) => iso.replaceAll('-', '');
    // Referral i: patient i+1, from institution (i % 300)+1; the first STAYS patients are admitted five days later and operated.
    const list = ['紹介日,患者ID,紹介元医療機関コード,紹介元医療機関名'];
    for (let i = 0; i < REFERRALS; i++)
      list.push(`${day(i % 200).replaceAll('-', '/')},${i + 1},${code((i % INSTITUTIONS) + 1)},連携クリニック`);
    const facility = '221234567';
    const efLines: string[] = [];
    const ff1Lines: string[] = [];
    for (let i = 0; i < STAYS; i++) {
      const id = String(i + 1).padStart(10, '0');
      const adm = compact(day((i % 200) + 5));
      const row = (dataClass: string, interp = '') => {
        const c = Array<string>(31).fill('');
        Object.assign(c, [facility, id, '00000000', adm, dataClass, '1', '001', '', interp ? '150254110' : '', interp]);
        c[10] = interp ? '腹腔鏡下胆嚢摘出術' : '';
        c[23] = adm;
        return c.join('\t');
      };
      efLines.push(row('90'), row('50', 'K672-2'));
      for (let k = 2; k < EF_ROWS_PER_STAY; k++) efLines.push(row('90'));
      ff1Lines.push(
        [facility, id, adm, '1', '0', 'A000020', '20180401', '0', adm, '1', '1', '0', '1', '0', '', '', ''].join('\t'),
      );
    }
    const uploadFile = async (importType: string, name: string, body: string) => {
      const boundary = `----renkei${randomUUID()}`;
      const res = await app.inject({
        method: 'POST',
        url: '/api/data_uploads',
        headers: {
          authorization: `Bearer ${await testAuth.token(hospital)}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
        },
        payload: Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="import_type"\r\n\r\n${importType}\r\n` +
              `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/plain\r\n\r\n`,
          ),
          Buffer.from(body),
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]),
      });
      expect(res.statusCode, res.body).toBe(202);
      return res.json().id as string;
    };
    // The EF before its FF1: the operations must still end up on the stays.
    const ids = [
      await uploadFile('referral', 'referrals.csv', list.join('\r\n')),
      await uploadFile('hospital_admission_ef_file', 'EFn.txt', efLines.join('\r\n')),
      await uploadFile('ff1_file', 'FF1.txt', ff1Lines.join('\r\n')),
    ];

    const finished = async () => {
      const { rows } = await sql<{ n: string }>`
        SELECT count(*)::text AS n FROM es.events
         WHERE type = 'ReferralDataImportFinished' AND data->>'import_id' = ANY(${ids}::text[])`.execute(db.kysely);
      return Number(rows[0]!.n) === ids.length;
    };
    const chunks = async () => {
      const { rows } = await sql<{ n: string }>`
        SELECT count(*)::text AS n FROM es.events
         WHERE type IN ('ReferralsImported', 'DpcFactsImported', 'HospitalAdmissionsImported')
           AND data->>'import_id' = ANY(${ids}::text[])`.execute(db.kysely);
      return Number(rows[0]!.n);
    };
    let kills = 0;
    let midImport = 0;
    while (kills < KILLS && !(await finished())) {
      if (await killAfterProgress(chunks, finished, 150)) midImport += 1;
      kills += 1;
    }
    expect(midImport).toBeGreaterThan(0);
    const survivor = startWorker();
    try {
      await until(async () => (await finished()) && (await projectionsCaughtUp()));
    } finally {
      await killHard(survivor);
    }

    // Each chunk once, each record once (the worker writes a chunk's referrals as columns).
    const { rows: events } = await sql<{ type: string; n: string; chunks: string; records: string; rows: string }>`
      SELECT type, count(*)::text AS n, count(DISTINCT data->>'chunk')::text AS chunks,
             sum(coalesce(jsonb_array_length(data->'referral_columns'->'identity'), 0) + coalesce(jsonb_array_length(data->'procedures'), 0))::text AS records,
             sum((data->>'imported_row_count')::int)::text AS rows
        FROM es.events WHERE data->>'import_id' = ANY(${ids}::text[])
         AND type IN ('ReferralsImported', 'DpcFactsImported') GROUP BY type ORDER BY type`.execute(db.kysely);
    expect(events.map((e) => [e.type, e.n === e.chunks, Number(e.records), Number(e.rows)])).toEqual([
      ['DpcFactsImported', true, STAYS, STAYS * EF_ROWS_PER_STAY],
      ['ReferralsImported', true, REFERRALS, REFERRALS],
    ]);
    const { rows: records } = await sql<{ import_type: string; status: string; imported_row_count: number }>`
      SELECT import_type, status, imported_row_count FROM rm.referral_data_imports
       WHERE tenant_id = ${hospital.tenantId} ORDER BY import_type`.execute(db.kysely);
    expect(records).toEqual([
      { import_type: 'ff1_file', status: 'completed', imported_row_count: STAYS },
      { import_type: 'hospital_admission_ef_file', status: 'completed', imported_row_count: STAYS * EF_ROWS_PER_STAY },
      { import_type: 'referral', status: 'completed', imported_row_count: REFERRALS },
    ]);
    const { rows: figures } = await sql<{ referrals: number; stays: number; operated_stays: number; rollup: string }>`
      SELECT (SELECT count(*)::int FROM rm.referrals WHERE tenant_id = ${hospital.tenantId}) AS referrals,
             (SELECT count(*)::int FROM rm.hospital_admissions WHERE tenant_id = ${hospital.tenantId}) AS stays,
             (SELECT count(kcode)::int FROM rm.hospital_admissions WHERE tenant_id = ${hospital.tenantId}) AS operated_stays,
             (SELECT sum(referral_count)::text || '/' || sum(admitted_count)::text || '/' || sum(operated_count)::text
                FROM rm.referral_monthly_rollups WHERE tenant_id = ${hospital.tenantId}) AS rollup`.execute(db.kysely);
    expect(figures[0]).toEqual({
      referrals: REFERRALS,
      stays: STAYS,
      operated_stays: STAYS,
      rollup: `${REFERRALS}/${STAYS}/${STAYS}`,
    });

    const afterKills = await readModelDigests();
    expect(await rebuildCleanly()).toEqual(afterKills);
    console.log(
      `[kill -9] referral data: ${kills} kills (${midImport} while chunks were being recorded) over ${REFERRALS} referral rows, ${STAYS * EF_ROWS_PER_STAY} EF rows and ${STAYS} FF1 rows`,
    );
  });
});
