import { randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describeError, type OperationResult } from './operation-result.ts';

export type AdminHandler = (args: Record<string, unknown>) => Promise<string>;

export interface AdminServer {
  readonly port: number;
  close(): Promise<void>;
}

export const adminFiles = (dataDir: string) => ({
  secret: path.join(dataDir, 'admin-secret'),
  endpoint: path.join(dataDir, 'admin.json'),
});

/**
 * The running process's door for `pnpm ops`: the embedded database has exactly one owner, so a CLI
 * started beside it asks it to do the work. Bound to 127.0.0.1 and guarded by a fresh random secret in
 * `<dataDir>/admin-secret` (0600): only someone who can read the data directory can use it.
 */
export async function startAdminServer(options: {
  dataDir: string;
  port?: number;
  handlers: Record<string, AdminHandler>;
}): Promise<AdminServer> {
  const files = adminFiles(options.dataDir);
  const secret = randomBytes(32).toString('hex');
  fs.mkdirSync(options.dataDir, { recursive: true });
  fs.rmSync(files.secret, { force: true });
  fs.writeFileSync(files.secret, secret, { mode: 0o600 });
  const expected = Buffer.from(`Bearer ${secret}`);

  const server = http.createServer((req, res) => {
    const reply = (status: number, body: OperationResult) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    };
    const given = Buffer.from(req.headers.authorization ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return reply(401, { ok: false, error: 'admin secret missing or wrong' });
    }
    const name = decodeURIComponent((req.url ?? '').replace(/^\/ops\//, ''));
    const handler = req.method === 'POST' && Object.hasOwn(options.handlers, name) ? options.handlers[name] : undefined;
    if (!handler) return reply(404, { ok: false, error: `unknown operation ${name}` });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let args: Record<string, unknown>;
      try {
        args = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      } catch {
        return reply(400, { ok: false, error: 'body is not JSON' });
      }
      handler(args).then(
        (output) => reply(200, { ok: true, output }),
        (error: unknown) => reply(200, { ok: false, error: describeError(error) }),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  fs.writeFileSync(files.endpoint, JSON.stringify({ pid: process.pid, port }));

  return {
    port,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      for (const file of [files.endpoint, files.secret]) {
        try {
          if (file === files.endpoint && JSON.parse(fs.readFileSync(file, 'utf8')).pid !== process.pid) continue;
          fs.rmSync(file, { force: true });
        } catch {}
      }
    },
  };
}
