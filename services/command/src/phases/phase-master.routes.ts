import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { HttpError, endpoints, listVersion, ownDepartmentsVersion } from '@renkei/contracts';
import { ownDepartmentsAggregate, phaseMastersAggregate } from '@renkei/domain';
import { streamId, type EventStore } from '@renkei/event-store';
import { registerEndpoint } from '@renkei/service-kit';
import { handleCommand } from '../shared/command-handler.ts';
import { phaseEnabled } from '../shared/facts.ts';
import { ownDepartmentsDecider, phaseMastersDecider } from './phase-master.decider.ts';

/** `If-Match: "l…"` or `l…` → the list version; absent → null. */
function readListIfMatch(header: string | string[] | undefined): string | null {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return null;
  return value.replace(/^W\//, '').replace(/^"|"$/g, '');
}

/**
 * Tenant-wide settings owners maintain: phase masters (PUT /phase_masters) and the tenant's own
 * hospital departments (PUT /own_medical_institution/departments). Each is one stream per tenant
 * holding the whole ordered list; the whole list is replaced, so a save based on a list another
 * owner has changed since is refused (If-Match on the list's version).
 */
export function registerPhaseMasterRoutes(app: FastifyInstance, deps: { store: EventStore }): void {
  const { store } = deps;

  registerEndpoint(app, endpoints.replacePhaseMasters, async ({ body, auth, request, reply }) => {
    if (!(await phaseEnabled(store, auth.tenantId))) throw new HttpError(403, 'フェーズ機能が有効になっていません。');
    const ifMatch = readListIfMatch(request.headers['if-match']);
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: streamId(phaseMastersAggregate, auth.tenantId),
        decider: phaseMastersDecider,
        command: { phaseMasters: body.phase_masters, newId: randomUUID },
        ifMatch:
          ifMatch === null
            ? null
            : {
                matches: (current) => listVersion(current) === ifMatch,
                message: '他のユーザーがフェーズを変更しました。再読み込みしてからやり直してください。',
              },
        onRace: 'conflict',
      },
    );
    if (result.position) reply.position(result.position);
    void reply.header('etag', `"${listVersion(result.after)}"`);
    return result.after.map((p, order) => ({ ...p, order }));
  });

  registerEndpoint(app, endpoints.replaceOwnDepartments, async ({ body, auth, request, reply }) => {
    const ifMatch = readListIfMatch(request.headers['if-match']);
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: streamId(ownDepartmentsAggregate, auth.tenantId),
        decider: ownDepartmentsDecider,
        command: { ownDepartments: body.own_departments, newId: randomUUID },
        ifMatch:
          ifMatch === null
            ? null
            : {
                matches: (current) => ownDepartmentsVersion(current) === ifMatch,
                message: '他のユーザーが自院の診療科を変更しました。再読み込みしてからやり直してください。',
              },
        onRace: 'conflict',
      },
    );
    if (result.position) reply.position(result.position);
    void reply.header('etag', `"${ownDepartmentsVersion(result.after)}"`);
    return result.after.map((d, order) => ({ ...d, order }));
  });
}
