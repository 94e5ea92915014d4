import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { HttpError, endpoints, type MedicalInstitutionLabel } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import {
  medicalInstitutionLabelAggregate,
  medicalInstitutionLabelOrderAggregate,
  type MedicalInstitutionLabelDefined,
} from '@renkei/domain';
import { streamId, type EventStore } from '@renkei/event-store';
import { registerEndpoint, type AuthContext } from '@renkei/service-kit';
import { etagOf, eventMetadata, readIfMatch } from '../shared/command-context.ts';
import { appendDecided, expectedFrom, readOwnStream } from '../medical-institutions/crm-support.ts';
import { decideLabel, foldLabel } from './label.decider.ts';

export interface LabelRouteDeps {
  db: Database;
  store: EventStore;
}

export async function loadLabel(store: EventStore, tenantId: string, labelId: string) {
  const { events, revision } = await readOwnStream(store, medicalInstitutionLabelAggregate, labelId, tenantId);
  return { state: foldLabel(events), revision };
}

const toLabel = (d: MedicalInstitutionLabelDefined, order: number, version: number): MedicalInstitutionLabel => ({
  id: d.label_id,
  name: d.name,
  description: d.description,
  component_type: d.component_type,
  order,
  selections: d.selections,
  areas: d.areas,
  version,
});

export function registerLabelRoutes(app: FastifyInstance, deps: LabelRouteDeps): void {
  const { db, store } = deps;

  /** Where a label sits: the projection's order (a label not projected yet goes last). */
  async function orderOf(tenantId: string, labelId: string): Promise<number> {
    const { rows } = await sql<{ order: number | null; next: number }>`
      SELECT (SELECT sort_order FROM rm.medical_institution_labels WHERE tenant_id = ${tenantId} AND id = ${labelId}) AS order,
             (SELECT coalesce(max(sort_order) + 1, 0) FROM rm.medical_institution_labels WHERE tenant_id = ${tenantId})::int AS next`
      .execute(db.kysely)
      .catch(() => ({ rows: [] as { order: number | null; next: number }[] }));
    return rows[0]?.order ?? rows[0]?.next ?? 0;
  }

  async function save(
    auth: AuthContext,
    requestId: string,
    labelId: string,
    body: Parameters<typeof decideLabel>[2],
    ifMatch: number | null,
    mustExist: boolean,
  ) {
    const { state, revision } = await loadLabel(store, auth.tenantId, labelId);
    if (mustExist && state.status !== 'active') throw new HttpError(404);
    if (ifMatch !== null && ifMatch !== revision) throw new HttpError(409);
    const decided = decideLabel(state, labelId, body);
    if (!Array.isArray(decided)) throw new HttpError(422, undefined, { errors: [decided] });
    if (decided.length === 0) return { definition: state.definition!, revision, position: null };
    const result = await appendDecided(
      store,
      { aggregate: medicalInstitutionLabelAggregate, id: labelId, revision },
      decided,
      auth,
      requestId,
    );
    return {
      definition: decided[0]!.data as MedicalInstitutionLabelDefined,
      revision: result.revision,
      position: result.position,
    };
  }

  registerEndpoint(app, endpoints.createMedicalInstitutionLabel, async ({ body, auth, request, reply }) => {
    const labelId = randomUUID();
    const saved = await save(auth, request.id, labelId, body, null, false);
    if (saved.position) reply.position(saved.position);
    void reply.header('etag', etagOf(saved.revision));
    return toLabel(saved.definition, await orderOf(auth.tenantId, labelId), saved.revision);
  });

  registerEndpoint(app, endpoints.updateMedicalInstitutionLabel, async ({ params, body, auth, request, reply }) => {
    const saved = await save(auth, request.id, params.id, body, readIfMatch(request.headers['if-match']), true);
    if (saved.position) reply.position(saved.position);
    void reply.header('etag', etagOf(saved.revision));
    return toLabel(saved.definition, await orderOf(auth.tenantId, params.id), saved.revision);
  });

  registerEndpoint(app, endpoints.deleteMedicalInstitutionLabel, async ({ params, auth, request, reply }) => {
    const ifMatch = readIfMatch(request.headers['if-match']);
    const { state, revision } = await loadLabel(store, auth.tenantId, params.id);
    if (state.status !== 'active') throw new HttpError(404);
    if (ifMatch !== null && ifMatch !== revision) throw new HttpError(409);
    const result = await store.append(
      streamId(medicalInstitutionLabelAggregate, params.id),
      [
        {
          type: 'MedicalInstitutionLabelDeleted',
          data: { label_id: params.id },
          metadata: eventMetadata(auth, request.id),
        },
      ],
      { expectedRevision: revision },
    );
    reply.position(result.position);
    return null;
  });

  registerEndpoint(app, endpoints.orderMedicalInstitutionLabels, async ({ body, auth, request, reply }) => {
    const labels = await Promise.all(body.label_ids.map((id) => loadLabel(store, auth.tenantId, id)));
    const errors = labels.flatMap((l, i) =>
      l.state.status === 'active' ? [] : [{ field: `label_ids.${i}`, message: 'ラベルが見つかりません' }],
    );
    if (errors.length > 0) throw new HttpError(422, undefined, { errors });
    const { rows } = await sql<{ id: string }>`
      SELECT id FROM rm.medical_institution_labels WHERE tenant_id = ${auth.tenantId}`
      .execute(db.kysely)
      .catch(() => ({ rows: [] as { id: string }[] }));
    const missing = rows.filter((r) => !body.label_ids.includes(r.id));
    if (missing.length > 0)
      throw new HttpError(422, undefined, {
        errors: [{ field: 'label_ids', message: 'すべてのラベルの並び順を指定してください' }],
      });
    const order = await readOwnStream(store, medicalInstitutionLabelOrderAggregate, auth.tenantId, auth.tenantId);
    const result = await store.append(
      streamId(medicalInstitutionLabelOrderAggregate, auth.tenantId),
      [
        {
          type: 'MedicalInstitutionLabelsReordered',
          data: { label_ids: body.label_ids },
          metadata: eventMetadata(auth, request.id),
        },
      ],
      { expectedRevision: expectedFrom(order.revision) },
    );
    reply.position(result.position);
    return labels.map((l, i) => toLabel(l.state.definition!, i, l.revision));
  });
}
