import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import {
  fillPath,
  pathParamNames,
  permissionRequiredMessage,
  registry,
  type EndpointContract,
  type OwningService,
  type Role,
} from '@renkei/contracts';

/** The callers the roles matrix tells apart. */
export interface MatrixCaller {
  role: Role;
  csAccount: boolean;
}

export const matrixCallers: readonly MatrixCaller[] = [
  { role: 'member', csAccount: false },
  { role: 'owner', csAccount: false },
  { role: 'member', csAccount: true },
  { role: 'owner', csAccount: true },
];

export interface MatrixMismatch {
  id: string;
  caller: string;
  expected: 'allowed' | 'refused';
  status: number;
}

/**
 * What the registry's fields say, written again here rather than imported from the service kit's own
 * check: a fault in that check must show as a mismatch, not be repeated by the test.
 */
function expectedAllowed(contract: EndpointContract, caller: MatrixCaller): boolean {
  if (contract.csAccount) return contract.csAccount === 'only' ? caller.csAccount : !caller.csAccount;
  return contract.ownerOnly !== true || caller.role === 'owner';
}

/**
 * Calls every served entry of `service` as each caller (every feature on, path ids that name nothing,
 * an empty body) and lists the answers that disagree with the matrix: a refusal must be the role's
 * 403 with the permission message, an allowed call anything but that (a 404, 422 … for the made-up
 * input; a handler's own 403, for example for a switched-off tenant setting, carries another message).
 */
export async function walkRolesMatrix(input: {
  app: FastifyInstance;
  service: OwningService;
  served: readonly string[];
  token: (caller: MatrixCaller) => Promise<string>;
}): Promise<{ checked: number; mismatches: MatrixMismatch[] }> {
  const mismatches: MatrixMismatch[] = [];
  let checked = 0;
  const tokens = new Map<MatrixCaller, string>();
  for (const caller of matrixCallers) tokens.set(caller, await input.token(caller));
  for (const contract of registry) {
    if (contract.service !== input.service || !input.served.includes(contract.id)) continue;
    const params = Object.fromEntries(pathParamNames(contract.path).map((name) => [name, randomUUID()]));
    for (const caller of matrixCallers) {
      const res = await input.app
        .inject({
          method: contract.method,
          url: `/api${fillPath(contract.path, params)}`,
          headers: { authorization: `Bearer ${tokens.get(caller)}` },
          ...(contract.method === 'GET' || contract.method === 'DELETE' ? {} : { payload: {} }),
        })
        // A download whose stream fails (no read model in an empty database) was let through.
        .catch(() => ({ statusCode: 500, body: '' }));
      checked++;
      const refused =
        res.statusCode === 403 && (JSON.parse(res.body) as { message?: string }).message === permissionRequiredMessage;
      const allowed = expectedAllowed(contract, caller);
      if (refused === allowed) {
        mismatches.push({
          id: contract.id,
          caller: `${caller.role}${caller.csAccount ? '+cs' : ''}`,
          expected: allowed ? 'allowed' : 'refused',
          status: res.statusCode,
        });
      }
    }
  }
  return { checked, mismatches };
}
