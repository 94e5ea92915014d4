import fs from 'node:fs';
import { embeddedDatabaseOwner } from '@renkei/db';
import type { OperationResult } from './operation-result.ts';
import { adminFiles } from './admin-server.ts';

export interface RunningAdmin {
  readonly pid: number;
  readonly port: number;
  readonly secret: string;
}

/**
 * The process that owns the embedded database in `dataDir`, if one is alive (its pid is in the lock
 * file libs/db keeps), with its admin endpoint. Undefined when nobody owns it: the CLI may open it.
 */
export function findRunningAdmin(dataDir: string): RunningAdmin | undefined {
  const owner = embeddedDatabaseOwner(dataDir);
  if (owner === undefined) return undefined;
  const files = adminFiles(dataDir);
  try {
    const endpoint = JSON.parse(fs.readFileSync(files.endpoint, 'utf8')) as { pid: number; port: number };
    if (endpoint.pid !== owner) throw new Error('stale');
    return { pid: owner, port: endpoint.port, secret: fs.readFileSync(files.secret, 'utf8').trim() };
  } catch {
    throw new Error(
      `The embedded database in ${dataDir} is open in process ${owner}, which offers no admin endpoint ` +
        '(still starting, or not a Renkei server). Try again in a moment or stop that process.',
    );
  }
}

export async function callAdmin(
  admin: RunningAdmin,
  operation: string,
  args: Record<string, unknown>,
): Promise<OperationResult> {
  const res = await fetch(`http://127.0.0.1:${admin.port}/ops/${encodeURIComponent(operation)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify(args),
  });
  const body = (await res.json()) as OperationResult;
  if (res.status !== 200 && body.ok) return { ok: false, error: `admin endpoint answered ${res.status}` };
  return body;
}
