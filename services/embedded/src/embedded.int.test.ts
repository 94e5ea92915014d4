import { randomUUID } from 'node:crypto';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

// Each step spawns real processes (the server, the CLI): generous limits for a busy 2-core machine.
const slow = { timeout: 600_000 };

describe('embedded default and the ops CLI, running and stopped', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-embedded-'));
  let port: number;
  let server: ChildProcess | undefined;
  let serverLog = '';

  const env = () => ({
    ...process.env,
    RENKEI_DATA_DIR: dataDir,
    PORT: String(port),
    RENKEI_SKIP_WEB_BUILD: 'true',
    DATABASE_URL: '',
    LOG_LEVEL: 'warn',
  });

  const ops = (...args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', 'services/embedded/src/ops/cli.ts', ...args],
        { cwd: root, env: env(), timeout: 120_000 },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number(error.code ?? 1) : 0, stdout: stdout.trim(), stderr }),
      );
    });

  const demoTagNames = [
    '紹介元重点',
    '逆紹介先',
    '訪問予定',
    '新規開業',
    '在宅連携',
    '連携協定締結',
    '救急受入相談',
    '休診注意',
  ];
  let demoQueryToken = '';
  let demoTags: { name: string; medical_institution_count: number }[] = [];

  /** The demo tenant's tags once the tags projection has caught up (two equal reads in a row). */
  async function settledDemoTags(): Promise<{ name: string; medical_institution_count: number }[]> {
    let previous = '';
    for (let i = 0; i < 120; i++) {
      const res = await api('GET', '/api/tags?per_page=100', demoQueryToken);
      const tags = ((res.body.data ?? []) as { name: string; medical_institution_count: number }[])
        .map((t) => ({ name: t.name, medical_institution_count: t.medical_institution_count }))
        .sort((a, b) => a.name.localeCompare(b.name));
      const now = JSON.stringify(tags);
      if (tags.length === demoTagNames.length && now === previous) return tags;
      previous = now;
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new Error(`the demo tags did not settle: ${previous}`);
  }

  const once = (method: string, urlPath: string, token: string, body: unknown, key: string) =>
    new Promise<{ status: number; body: any; retryAfter: number }>((resolve, reject) => {
      const req = https.request(
        {
          host: 'localhost',
          port,
          method,
          path: urlPath,
          ca: fs.readFileSync(path.join(dataDir, 'tls', 'ca.pem')),
          headers: {
            authorization: `Bearer ${token}`,
            ...(body ? { 'content-type': 'application/json' } : {}),
            ...(method === 'POST' ? { 'idempotency-key': key } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({
              status: res.statusCode ?? 0,
              body: /^[[{]/.test(text) ? JSON.parse(text) : text,
              retryAfter: Number(res.headers['retry-after'] ?? 1),
            });
          });
        },
      );
      req.on('error', reject);
      req.end(body ? JSON.stringify(body) : undefined);
    });
  /**
   * As a client should: a 503 (the one process busy — a loaded CI machine held its event loop past the
   * overload limit during start-up) is retried after its Retry-After, with the same Idempotency-Key.
   */
  const api = async (method: string, urlPath: string, token: string, body?: unknown) => {
    const key = randomUUID();
    for (let attempt = 1; ; attempt++) {
      const res = await once(method, urlPath, token, body, key);
      if (res.status !== 503 || attempt === 12) return { status: res.status, body: res.body };
      await new Promise((r) => setTimeout(r, Math.min(res.retryAfter, 5) * 1000));
    }
  };

  async function startServer(): Promise<void> {
    const caPath = path.join(dataDir, 'tls', 'ca.pem');
    const proc = spawn(process.execPath, ['--import', 'tsx', 'services/embedded/src/main.ts'], {
      cwd: root,
      env: { ...env(), NODE_EXTRA_CA_CERTS: caPath },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server = proc;
    serverLog = '';
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        serverLog += chunk.toString('utf8');
        if (serverLog.includes(`https://localhost:${port}/app/`)) resolve();
      };
      proc.stdout!.on('data', onData);
      proc.stderr!.on('data', onData);
      proc.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${serverLog}`)));
    });
  }

  async function stopServer(): Promise<number | null> {
    const proc = server;
    server = undefined;
    if (!proc || proc.exitCode !== null) return proc?.exitCode ?? null;
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    proc.kill('SIGTERM');
    return exited;
  }

  beforeAll(async () => {
    port = await freePort();
    // The CA must exist before the server starts (scripts/start.mjs does the same).
    await new Promise<void>((resolve, reject) =>
      execFile(process.execPath, ['--import', 'tsx', 'services/gateway/src/tls-cli.ts', dataDir], { cwd: root }, (e) =>
        e ? reject(e) : resolve(),
      ),
    );
    await startServer();
  }, 600_000);

  afterAll(async () => {
    await stopServer();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('seeds the demo tenant on first start and prints its sign-in', slow, async () => {
    expect(serverLog).toContain('owner@demo.example.jp');
    const token = await ops('token', '--tenant', 'demo', '--email', 'owner@demo.example.jp', '--audience', 'main');
    expect(token.code).toBe(0);
    const me = await api('GET', '/api/current_user', token.stdout);
    expect(me.status).toBe(200);
    expect(me.body.tenant.name).toBe('駿河総合医療センター');
    expect(me.body.role).toBe('owner');

    // The demo CRM data: tags on a few hundred institutions and the phase masters.
    demoQueryToken = (await ops('token', '--tenant', 'demo', '--email', 'owner@demo.example.jp', '--audience', 'query'))
      .stdout;
    demoTags = await settledDemoTags();
    expect(demoTags.map((t) => t.name).sort()).toEqual(demoTagNames.slice().sort());
    const tagged = demoTags.reduce((n, t) => n + t.medical_institution_count, 0);
    expect(tagged).toBeGreaterThan(200);
    const phases = await api('GET', '/api/phase_masters', demoQueryToken);
    expect(phases.body.map((p: { name: string }) => p.name)).toEqual([
      '未接触',
      '初回訪問済',
      '定期訪問',
      '紹介実績あり',
    ]);
  });

  it('runs ops commands through the running process that owns the embedded database', slow, async () => {
    const added = await ops(
      'tenant',
      'add',
      'kita-clinic',
      '--name',
      '北町病院',
      '--owner',
      'kanri@kita.example.jp',
      '--password',
      'kita-pass-2026',
    );
    expect(added.stderr).not.toContain('エラー');
    expect(added.stdout).toContain('kita-clinic');

    const again = await ops(
      'tenant',
      'add',
      'kita-clinic',
      '--name',
      '北町病院',
      '--owner',
      'x@kita.example.jp',
      '--password',
      'kita-pass-2026',
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('既に存在');

    const command = await ops(
      'token',
      '--tenant',
      'kita-clinic',
      '--email',
      'kanri@kita.example.jp',
      '--audience',
      'command',
    );
    const query = await ops(
      'token',
      '--tenant',
      'kita-clinic',
      '--email',
      'kanri@kita.example.jp',
      '--audience',
      'query',
    );
    const created = await api('POST', '/api/tags', command.stdout, { name: '紹介元', description: '' });
    expect(created.status).toBe(201);
    // The command token is not valid on the query API (one audience per token).
    expect((await api('GET', '/api/tags', command.stdout)).status).toBe(401);
    let listed: { status: number; body: any } | undefined;
    for (let i = 0; i < 50; i++) {
      listed = await api('GET', '/api/tags', query.stdout);
      if (listed.body.data?.length) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(listed!.body.data.map((t: { name: string }) => t.name)).toEqual(['紹介元']);

    const status = await ops('projections', 'status');
    expect(status.stdout).toMatch(/^tags\s+\d+\s+live/m);
    expect(status.stdout).toMatch(/^medical_institution_label_value_import\s+\d+\/\d+\s+\d+/m);
    const rebuild = await ops('projections', 'rebuild', 'tags');
    expect(rebuild.code).toBe(0);
    expect(rebuild.stdout).toContain('依頼しました');
  });

  it('refuses the admin endpoint without the secret', async () => {
    const { port: adminPort } = JSON.parse(fs.readFileSync(path.join(dataDir, 'admin.json'), 'utf8')) as {
      port: number;
    };
    const res = await fetch(`http://127.0.0.1:${adminPort}/ops/token`, {
      method: 'POST',
      headers: { authorization: 'Bearer wrong', 'content-type': 'application/json' },
      body: JSON.stringify({ tenant: 'demo', email: 'owner@demo.example.jp', audience: 'main' }),
    });
    expect(res.status).toBe(401);
    expect(await res.text()).not.toMatch(/eyJ/);
    expect(fs.statSync(path.join(dataDir, 'admin-secret')).mode & 0o077).toBe(0);
  });

  it('opens the database itself when Renkei is stopped, and the running server sees the result', slow, async () => {
    expect(await stopServer()).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'renkei.lock'))).toBe(false);
    expect(fs.existsSync(path.join(dataDir, 'admin.json'))).toBe(false);

    const added = await ops(
      'tenant',
      'add',
      'minami',
      '--name',
      '南が丘クリニック',
      '--owner',
      'in@minami.example.jp',
      '--password',
      'minami-pass-1',
    );
    expect(added.stderr).not.toContain('エラー');
    expect(added.code).toBe(0);
    const rebuilt = await ops('projections', 'rebuild', 'tags');
    expect(rebuilt.stdout).toContain('再構築しました');
    expect(rebuilt.stdout).toMatch(/^tags\s+\d+\s+live/m);

    await startServer();
    const token = await ops('token', '--tenant', 'minami', '--email', 'in@minami.example.jp', '--audience', 'main');
    expect(token.code).toBe(0);
    const me = await api('GET', '/api/current_user', token.stdout);
    expect(me.status).toBe(200);
    expect(me.body.tenant.name).toBe('南が丘クリニック');
    // The rebuilt read model still holds the tag created before the restart.
    const kita = await ops(
      'token',
      '--tenant',
      'kita-clinic',
      '--email',
      'kanri@kita.example.jp',
      '--audience',
      'query',
    );
    const tags = await api('GET', '/api/tags', kita.stdout);
    expect(tags.body.data.map((t: { name: string }) => t.name)).toEqual(['紹介元']);
    // The second start found the demo CRM data and wrote none of it again.
    expect(await settledDemoTags()).toEqual(demoTags);
    const phases = await api('GET', '/api/phase_masters', demoQueryToken);
    expect(phases.body).toHaveLength(4);
  });

  it('prints the contracts report and the mail list without touching the database', slow, async () => {
    const contracts = await ops('contracts');
    expect(contracts.code).toBe(0);
    expect(contracts.stdout).toMatch(/tags/i);
    const mail = await ops('mail');
    expect(mail.code).toBe(0);
    const usage = await ops('tenant', 'remove', 'x');
    expect(usage.code).toBe(1);
    expect(usage.stderr).toContain('使い方');
  });
});
