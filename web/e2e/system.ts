import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function status(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = https.get(url, { rejectUnauthorized: false, timeout: 5000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => {
      req.destroy();
      resolve(0);
    });
  });
}

async function waitFor(url: string, child: ChildProcess, log: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`Renkei exited with ${child.exitCode} while starting:\n${log()}`);
    if ((await status(url)) === 200) return;
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error(`Renkei did not answer ${url} within ${timeoutMs} ms:\n${log()}`);
}

const psql = (database: string, sql: string) =>
  execFileSync('psql', ['-h', '127.0.0.1', '-U', 'postgres', '-d', database, '-v', 'ON_ERROR_STOP=1', '-tAc', sql], {
    encoding: 'utf8',
  });

/**
 * Starts the real system (`node scripts/start.mjs`) on a fresh data directory, a fresh PostgreSQL
 * database and a free port. `stop` ends the process group and removes the database and directory.
 */
export async function startSystem(): Promise<{
  baseURL: string;
  env: NodeJS.ProcessEnv;
  database: string;
  stop: () => Promise<void>;
}> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-e2e-'));
  const port = await freePort();
  const database = `renkei_e2e_${process.pid}_${Date.now()}`;
  psql('postgres', `CREATE DATABASE ${database}`);
  const env = {
    ...process.env,
    RENKEI_DATA_DIR: dataDir,
    PORT: String(port),
    DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${database}`,
    RENKEI_SKIP_WEB_BUILD: 'true',
    // As behind an ingress: ip-allow-list.spec.ts signs in "from elsewhere" through X-Forwarded-For.
    TRUST_PROXY: 'true',
  };
  let output = '';
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: repoRoot,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const stop = async () => {
    if (child.exitCode === null && child.pid) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {}
      await new Promise((r) => {
        const timer = setTimeout(() => {
          try {
            process.kill(-child.pid!, 'SIGKILL');
          } catch {}
          r(null);
        }, 10_000);
        child.once('exit', () => {
          clearTimeout(timer);
          r(null);
        });
      });
    }
    try {
      psql('postgres', `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    } catch {}
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  const baseURL = `https://localhost:${port}`;
  try {
    await waitFor(`${baseURL}/app/`, child, () => output, 300_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseURL, env, database, stop };
}
