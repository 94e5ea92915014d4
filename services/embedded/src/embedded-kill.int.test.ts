import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { medicalInstitutionMemoAggregate } from '@renkei/domain';
import { newEventMetadata, streamId } from '@renkei/event-store';
import { buildInstitutionCode, institutionIdFromCode } from '@renkei/institution-master';
import { catchUpProjections, requestRebuild } from '@renkei/projections';
import { loadEmbeddedConfig } from './config.ts';
import { openOpsContext } from './system.ts';

// kill -9 of the whole embedded process (`pnpm start`: every service, the worker and PGlite in one
// process) at random moments, during an import and during a rebuild of every projection. Unlike the
// worker's kill test, the database dies with the process: after each kill the test itself opens the
// PGlite directory (its owner is gone), so what it checks is what the next start will find.
// EMBEDDED_KILL_TEST_KILLS sets the kills of each phase (default 20, as the reliability issue asks;
// `pnpm test` in CI sets 6, see scripts/test-all.mjs).
const KILLS = Number(process.env.EMBEDDED_KILL_TEST_KILLS ?? 20);
const INSTITUTIONS = 200;
const ROWS = 12_000;
const FILLER_EVENTS = 80_000;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const code = (n: number) =>
  buildInstitutionCode({ prefectureCode: 22, scoreTable: 1, districtNumber: 3, institutionNumber: 3000 + n });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-embedded-kill-'));
const config = loadEmbeddedConfig({ RENKEI_DATA_DIR: dataDir, DATABASE_URL: '' });
const tenant = { slug: 'kill-test', owner: 'owner@kill-test.example', password: 'kill-test-pass-1' };
let port = 0;
let server: ChildProcess | undefined;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port: p } = s.address() as net.AddressInfo;
      s.close(() => resolve(p));
    });
  });
}

const env = () => ({
  ...process.env,
  RENKEI_DATA_DIR: dataDir,
  PORT: String(port),
  RENKEI_SKIP_WEB_BUILD: 'true',
  RENKEI_DEMO_SEED: 'false',
  DATABASE_URL: '',
  LOG_LEVEL: 'fatal',
  NODE_EXTRA_CA_CERTS: path.join(dataDir, 'tls', 'ca.pem'),
});

/** Spawns the server without waiting for it: the worker starts (and resumes a rebuild) before the gateway listens. */
function spawnServer(): ChildProcess {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'services/embedded/src/main.ts'], {
    cwd: root,
    env: env(),
    stdio: 'ignore',
  });
  server = proc;
  return proc;
}

async function startServer(): Promise<ChildProcess> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'services/embedded/src/main.ts'], {
    cwd: root,
    env: env(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server = proc;
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      log += chunk.toString('utf8');
      if (log.includes(`https://localhost:${port}/app/`)) resolve();
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', (exitCode) => reject(new Error(`the server exited with ${exitCode}:\n${log}`)));
  });
  return proc;
}

async function killHard(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGKILL');
  await exited;
}

async function stopCleanly(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGTERM');
  await exited;
}

const ops = (...args: string[]) =>
  new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'services/embedded/src/ops/cli.ts', ...args],
      { cwd: root, env: env(), timeout: 180_000 },
      (error, stdout, stderr) =>
        error ? reject(new Error(`ops ${args.join(' ')}: ${stderr}`)) : resolve(stdout.trim()),
    );
  });

function api(
  method: string,
  urlPath: string,
  token: string,
  body?: { json?: unknown; multipart?: Buffer; boundary?: string },
) {
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const payload = body?.multipart ?? (body?.json === undefined ? undefined : Buffer.from(JSON.stringify(body.json)));
    const req = https.request(
      {
        host: 'localhost',
        port,
        method,
        path: urlPath,
        ca: fs.readFileSync(path.join(dataDir, 'tls', 'ca.pem')),
        headers: {
          authorization: `Bearer ${token}`,
          ...(body?.multipart
            ? { 'content-type': `multipart/form-data; boundary=${body.boundary}` }
            : payload
              ? { 'content-type': 'application/json' }
              : {}),
          ...(payload ? { 'content-length': String(payload.length) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: /^[[{]/.test(text) ? JSON.parse(text) : text });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The stopped install's database, opened by the test as the next start would open it. */
async function withDatabase<T>(work: (ctx: Awaited<ReturnType<typeof openOpsContext>>) => Promise<T>): Promise<T> {
  const ctx = await openOpsContext(config);
  try {
    return await work(ctx);
  } finally {
    await ctx.close();
  }
}

type Ctx = Awaited<ReturnType<typeof openOpsContext>>;

/** Per read model (every view of the rm schema): its row count and a digest of all its rows. */
async function readModelDigests(ctx: Ctx): Promise<Record<string, string>> {
  const { rows: views } = await sql<{ name: string }>`
    SELECT table_name AS name FROM information_schema.views WHERE table_schema = 'rm' ORDER BY table_name`.execute(
    ctx.db.kysely,
  );
  const digests: Record<string, string> = {};
  for (const { name } of views) {
    const { rows } = await sql<{ n: string; digest: string | null }>`
      SELECT count(*)::text AS n, md5(string_agg(t::text, '|' ORDER BY t::text)) AS digest
        FROM ${sql.table(`rm.${name}`)} t`.execute(ctx.db.kysely);
    digests[name] = `${rows[0]!.n}:${rows[0]!.digest ?? ''}`;
  }
  return digests;
}

async function catchUp(ctx: Ctx): Promise<void> {
  await catchUpProjections({
    db: ctx.db,
    store: ctx.store,
    projections: ctx.projections,
    until: await ctx.store.headPosition(),
    timeoutMs: 300_000,
  });
}

async function rebuildCleanly(ctx: Ctx): Promise<Record<string, string>> {
  for (const p of ctx.projections) await requestRebuild(ctx.db, p.name);
  await catchUp(ctx);
  return readModelDigests(ctx);
}

/**
 * Runs the server and kills it at a random moment after it is up, `KILLS` times or until `done`;
 * `progress` (read with the server down) says whether the kill fell while work was still going on.
 */
async function killRepeatedly(
  progress: (ctx: Ctx) => Promise<{ done: boolean; mark: number }>,
  /** With the server up: whether work has visibly moved since it started (the kill then falls inside it). */
  moving?: () => Promise<boolean>,
) {
  let kills = 0;
  let midWork = 0;
  let before = await withDatabase(progress);
  while (kills < KILLS && !before.done) {
    // Without a sign of progress to wait for, the kill falls anywhere in the start-up or just after it.
    const proc = moving ? await startServer() : spawnServer();
    if (moving) {
      // A start takes seconds on a busy machine: a kill on a timer alone would mostly hit idle time.
      const end = Date.now() + 30_000;
      while (Date.now() < end && !(await moving())) await sleep(100);
      await sleep(Math.random() * 400);
    } else await sleep(1_000 + Math.random() * 9_000);
    await killHard(proc);
    kills += 1;
    const after = await withDatabase(progress);
    if (after.mark !== before.mark && !after.done) midWork += 1;
    before = after;
  }
  return { kills, midWork };
}

beforeAll(async () => {
  port = await freePort();
  await new Promise<void>((resolve, reject) =>
    execFile(process.execPath, ['--import', 'tsx', 'services/gateway/src/tls-cli.ts', dataDir], { cwd: root }, (e) =>
      e ? reject(e) : resolve(),
    ),
  );
  const master = path.join(dataDir, 'master.csv');
  fs.writeFileSync(
    master,
    Array.from(
      { length: INSTITUTIONS },
      (_, i) => `${code(i + 1)},停止試験クリニック${i + 1},,,静岡県静岡市葵区追手町${i + 1},,,,診療所,0,内科,,,開設`,
    ).join('\n'),
  );
  await ops('institutions', 'import', master);
  await ops(
    'tenant',
    'add',
    tenant.slug,
    '--name',
    '停止試験病院',
    '--owner',
    tenant.owner,
    '--password',
    tenant.password,
  );
}, 600_000);

afterAll(async () => {
  if (server) await killHard(server);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

// Each kill costs a start of the whole process (seconds on a busy machine) and an open of PGlite.
const slow = { timeout: 1_800_000 };

describe('the embedded process under kill -9', () => {
  it(
    'an import killed at random moments stores every row exactly once, and the read models equal a clean rebuild',
    slow,
    async () => {
      const proc = await startServer();
      const command = await ops('token', '--tenant', tenant.slug, '--email', tenant.owner, '--audience', 'command');
      const label = await api('POST', '/api/medical_institution_labels', command, {
        json: { name: '紹介件数', component_type: 'integer' },
      });
      expect(label.status, JSON.stringify(label.body)).toBe(201);
      // Each row gives its institution a larger value, so every row is one change.
      const lines = ['医療機関コード,紹介件数'];
      for (let i = 0; i < ROWS; i++) lines.push(`${code((i % INSTITUTIONS) + 1)},${i + 1}`);
      const boundary = `----renkei${randomUUID()}`;
      const upload = await api('POST', '/api/imports/medical_institution_label_values', command, {
        boundary,
        multipart: Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="values.csv"\r\nContent-Type: text/csv\r\n\r\n`,
          ),
          Buffer.from(lines.join('\r\n')),
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]),
      });
      expect(upload.status, JSON.stringify(upload.body)).toBe(202);
      const importId = String(upload.body.id);
      // The first kill falls on the running import, the rest after fresh starts.
      await sleep(Math.random() * 1_000);
      await killHard(proc);

      const progress = async (ctx: Ctx) => {
        const { rows } = await sql<{ chunks: string; finished: string }>`
        SELECT count(*) FILTER (WHERE type = 'MedicalInstitutionLabelValuesImported')::text AS chunks,
               count(*) FILTER (WHERE type = 'LabelValueImportFinished')::text AS finished
          FROM es.events WHERE data->>'import_id' = ${importId}`.execute(ctx.db.kysely);
        return { done: Number(rows[0]!.finished) > 0, mark: Number(rows[0]!.chunks) };
      };
      const query = await ops('token', '--tenant', tenant.slug, '--email', tenant.owner, '--audience', 'query');
      const importedRows = async () => {
        const list = await api('GET', '/api/imports/medical_institution_label_values?per_page=10', query);
        const record = (list.body?.data ?? []).find((r: { id: string }) => r.id === importId);
        return Number(record?.imported_row_count ?? 0);
      };
      let seen = -1;
      const moving = async () => {
        const now = await importedRows();
        const moved = seen >= 0 && now !== seen;
        seen = now;
        return moved;
      };
      const { kills, midWork } = await killRepeatedly(progress, async () => {
        const moved = await moving();
        if (moved) seen = -1;
        return moved;
      });

      // What is left is finished by the survivor; it stops cleanly once the import is done.
      const survivor = await startServer();
      for (let i = 0; ; i++) {
        const list = await api('GET', '/api/imports/medical_institution_label_values?per_page=10', query);
        const record = (list.body?.data ?? []).find((r: { id: string }) => r.id === importId);
        if (record?.status === 'completed') break;
        if (i > 600) throw new Error(`the import did not finish: ${JSON.stringify(list.body)}`);
        await sleep(500);
      }
      await stopCleanly(survivor);

      await withDatabase(async (ctx) => {
        await catchUp(ctx);
        // Every row recorded once, in one chunk event each chunk.
        const { rows } = await sql<{ n: string; ids: string; chunks: string; chunk_numbers: string }>`
        SELECT count(*)::text AS n, count(DISTINCT r->>'row_number')::text AS ids,
               count(DISTINCT e.event_id)::text AS chunks, count(DISTINCT e.data->>'chunk')::text AS chunk_numbers
          FROM es.events e CROSS JOIN jsonb_array_elements(e.data->'rows') r
         WHERE e.type = 'MedicalInstitutionLabelValuesImported' AND e.data->>'import_id' = ${importId}`.execute(
          ctx.db.kysely,
        );
        expect(Number(rows[0]!.n)).toBe(ROWS);
        expect(Number(rows[0]!.ids)).toBe(ROWS);
        expect(Number(rows[0]!.chunks)).toBe(Number(rows[0]!.chunk_numbers));
        const record = await sql<{ status: string; imported_row_count: number; failed_row_count: number }>`
        SELECT status, imported_row_count, failed_row_count FROM rm.label_value_imports WHERE id = ${importId}`.execute(
          ctx.db.kysely,
        );
        expect(record.rows[0]).toMatchObject({ status: 'completed', imported_row_count: ROWS, failed_row_count: 0 });
        const values = await sql<{ medical_institution_id: string; integer_value: number }>`
        SELECT medical_institution_id, integer_value FROM rm.mi_label_values`.execute(ctx.db.kysely);
        expect(values.rows).toHaveLength(INSTITUTIONS);
        const expected = new Map(
          Array.from({ length: INSTITUTIONS }, (_, k) => [
            institutionIdFromCode(code(k + 1)),
            ROWS - INSTITUTIONS + k + 1,
          ]),
        );
        for (const v of values.rows) expect(v.integer_value).toBe(expected.get(v.medical_institution_id));
        const afterKills = await readModelDigests(ctx);
        expect(await rebuildCleanly(ctx)).toEqual(afterKills);
      });
      console.log(`[kill -9 embedded] import: ${kills + 1} kills (${midWork} between two chunks) over ${ROWS} rows`);
    },
  );

  it('a rebuild of every projection killed at random moments ends equal to a clean rebuild', slow, async () => {
    const reference = await withDatabase(async (ctx) => {
      // Enough events that the rebuild outlasts a start of the server, so the kills fall inside it.
      const tenantId = (
        await sql<{ id: string }>`SELECT id FROM identity.tenants WHERE slug = ${tenant.slug}`.execute(ctx.db.kysely)
      ).rows[0]!.id;
      for (let done = 0; done < FILLER_EVENTS; done += 500) {
        await ctx.store.append(
          streamId(medicalInstitutionMemoAggregate, randomUUID()),
          Array.from({ length: 500 }, (_, i) => ({
            type: 'MedicalInstitutionMemoChanged',
            data: {
              medical_institution_id: institutionIdFromCode(code(((done + i) % INSTITUTIONS) + 1)),
              content: `面談記録 ${done + i}`,
              previous_content: '',
            },
            metadata: newEventMetadata(tenantId),
          })),
          { expectedRevision: 'no_stream' },
        );
      }
      await catchUp(ctx);
      const digests = await readModelDigests(ctx);
      // Filed now, started by the next process to come up.
      for (const p of ctx.projections) await requestRebuild(ctx.db, p.name);
      return digests;
    });

    const progress = async (ctx: Ctx) => {
      const { rows } = await sql<{ pending: string; processed: string }>`
        SELECT (SELECT count(*) FROM rm.projection_rebuild_requests WHERE completed_at IS NULL)
             + (SELECT count(*) FROM rm.projection_checkpoints WHERE state = 'rebuilding') AS pending,
               (SELECT coalesce(sum(events_processed), 0) FROM rm.projection_checkpoints
                 WHERE state = 'rebuilding')::text AS processed`.execute(ctx.db.kysely);
      return { done: Number(rows[0]!.pending) === 0, mark: Number(rows[0]!.processed) };
    };
    const { kills, midWork } = await killRepeatedly(progress);

    // The survivor finishes the rebuild; it is stopped cleanly once no build is under way.
    for (let attempt = 0; ; attempt++) {
      const survivor = await startServer();
      let quiet = 0;
      for (let i = 0; quiet < 2; i++) {
        if (i > 600) throw new Error('the rebuild did not finish');
        quiet = /rebuilding/.test(await ops('projections', 'status')) ? 0 : quiet + 1;
        await sleep(1_000);
      }
      await stopCleanly(survivor);
      if ((await withDatabase(progress)).done) break;
      if (attempt > 5) throw new Error('rebuild requests are still pending');
    }

    await withDatabase(async (ctx) => {
      expect((await progress(ctx)).done).toBe(true);
      await catchUp(ctx);
      expect(await readModelDigests(ctx)).toEqual(reference);
      // No build's tables are left behind: one physical table per view.
      const { rows } = await sql<{ n: string }>`
        SELECT count(*)::text AS n FROM information_schema.tables WHERE table_schema = 'rm' AND table_type = 'BASE TABLE'
           AND table_name ~ '_v[0-9]+(_r[0-9]+)?$'`.execute(ctx.db.kysely);
      const views = await sql<{ n: string }>`
        SELECT count(*)::text AS n FROM information_schema.views WHERE table_schema = 'rm'`.execute(ctx.db.kysely);
      expect(rows[0]!.n).toBe(views.rows[0]!.n);
    });
    console.log(`[kill -9 embedded] rebuild: ${kills} kills (${midWork} while filling a build)`);
  });
});
