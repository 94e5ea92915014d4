import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { HttpError, endpoints, listVersion, ownDepartmentsVersion } from '@renkei/contracts';
import { ownDepartmentsAggregate, phaseMastersAggregate } from '@renkei/domain';
import type { EventStore } from '@renkei/event-store';
import { registerEndpoint } from '@renkei/service-kit';
import { appendDecided, phaseEnabled } from '../medical-institutions/crm-support.ts';
import { readOwnDepartments, readPhaseMasters } from '../medical-institutions/medical-institution.routes.ts';

/** `If-Match: "l…"` or `l…` → the list version; absent → null. */
function readListIfMatch(header: string | string[] | undefined): string | null {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return null;
  return value.replace(/^W\//, '').replace(/^"|"$/g, '');
}

/** Keeps a known id (references stay valid), gives new entries a fresh one, refuses duplicates. */
function assignIds<T extends { id?: string | undefined; name: string }>(
  items: readonly T[],
  known: ReadonlySet<string>,
  field: string,
) {
  const names = new Set<string>();
  const errors: { field: string; message: string }[] = [];
  const out = items.map((item, i) => {
    const key = item.name.normalize('NFKC').trim();
    if (names.has(key)) errors.push({ field: `${field}.${i}.name`, message: `「${item.name}」が重複しています` });
    names.add(key);
    return { ...item, id: item.id && known.has(item.id) ? item.id : randomUUID() };
  });
  if (errors.length > 0) throw new HttpError(422, undefined, { errors });
  return out;
}

/**
 * Tenant-wide settings owners maintain: phase masters (PUT /phase_masters) and the tenant's own
 * hospital departments (PUT /own_medical_institution/departments). Each is one stream per tenant
 * holding the whole ordered list.
 */
export function registerPhaseMasterRoutes(app: FastifyInstance, deps: { store: EventStore }): void {
  const { store } = deps;

  registerEndpoint(app, endpoints.replacePhaseMasters, async ({ body, auth, request, reply }) => {
    if (!(await phaseEnabled(store, auth.tenantId))) throw new HttpError(403, 'フェーズ機能が有効になっていません。');
    const { list: current, revision } = await readPhaseMasters(store, auth.tenantId);
    // The whole list is replaced: a save based on a list another owner has changed since is refused.
    const ifMatch = readListIfMatch(request.headers['if-match']);
    if (ifMatch !== null && ifMatch !== listVersion(current)) {
      throw new HttpError(409, '他のユーザーがフェーズを変更しました。再読み込みしてからやり直してください。');
    }
    const masters = assignIds(body.phase_masters, new Set(current.map((p) => p.id)), 'phase_masters').map((p) => ({
      id: p.id,
      name: p.name,
      description: p.description,
    }));
    const result = await appendDecided(
      store,
      { aggregate: phaseMastersAggregate, id: auth.tenantId, revision },
      [{ type: 'PhaseMastersReplaced', data: { phase_masters: masters } }],
      auth,
      request.id,
    );
    reply.position(result.position);
    void reply.header('etag', `"${listVersion(masters)}"`);
    return masters.map((p, order) => ({ ...p, order }));
  });

  registerEndpoint(app, endpoints.replaceOwnDepartments, async ({ body, auth, request, reply }) => {
    const { list: current, revision } = await readOwnDepartments(store, auth.tenantId);
    // As for phase masters: a save based on a list another owner has changed since is refused.
    const ifMatch = readListIfMatch(request.headers['if-match']);
    if (ifMatch !== null && ifMatch !== ownDepartmentsVersion(current)) {
      throw new HttpError(409, '他のユーザーが自院の診療科を変更しました。再読み込みしてからやり直してください。');
    }
    const departments = assignIds(body.own_departments, new Set(current.map((d) => d.id)), 'own_departments').map(
      (d) => ({
        id: d.id,
        name: d.name,
        department_id: d.department_id,
      }),
    );
    const result = await appendDecided(
      store,
      { aggregate: ownDepartmentsAggregate, id: auth.tenantId, revision },
      [{ type: 'OwnDepartmentsReplaced', data: { own_departments: departments } }],
      auth,
      request.id,
    );
    reply.position(result.position);
    void reply.header('etag', `"${ownDepartmentsVersion(departments)}"`);
    return departments.map((d, order) => ({ ...d, order }));
  });
}
