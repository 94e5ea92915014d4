import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { endpoints, type MedicalInstitutionLabel } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import {
  medicalInstitutionLabelAggregate,
  medicalInstitutionLabelOrderAggregate,
  type MedicalInstitutionLabelDefined,
} from '@renkei/domain';
import { streamId, type EventStore } from '@renkei/event-store';
import { registerEndpoint } from '@renkei/service-kit';
import { etagOf, readIfMatch, revisionIfMatch } from '../shared/command-context.ts';
import { handleCommand } from '../shared/command-handler.ts';
import { deterministicId } from '../shared/deterministic-id.ts';
import { idempotentCreate } from '../shared/idempotency.ts';
import { labelDecider, labelOrderDecider, normalizeLabelName } from './label.decider.ts';
import { createLabelNames, loadLabel, normalizeName } from './label-names.ts';

export interface LabelRouteDeps {
  db: Database;
  store: EventStore;
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

/** `If-Match` on the label order: the number of its saves, one more than its stream's revision. */
function orderIfMatch(header: string | string[] | undefined) {
  const expected = readIfMatch(header);
  return expected === null ? null : { matches: (_: unknown, revision: number) => revision + 1 === expected };
}

export function registerLabelRoutes(app: FastifyInstance, deps: LabelRouteDeps): void {
  const { db, store } = deps;
  const names = createLabelNames(db, store);

  registerEndpoint(app, endpoints.createMedicalInstitutionLabel, async ({ body, auth, request, reply }) =>
    idempotentCreate(
      db,
      {
        request,
        reply,
        tenantId: auth.tenantId,
        endpoint: endpoints.createMedicalInstitutionLabel.id,
        hashed: body,
        etag: (l: MedicalInstitutionLabel) => etagOf(l.version),
      },
      async (labelId, retryable) => {
        let n = 0;
        const stream = streamId(medicalInstitutionLabelAggregate, labelId);
        const result = await handleCommand(
          { store, auth, requestId: request.id },
          {
            stream,
            decider: labelDecider,
            // Under an Idempotency-Key a retry derives the same choice and area ids.
            command: {
              type: 'DefineLabel',
              labelId,
              create: true,
              input: body,
              newId: retryable ? () => deterministicId(labelId, 'choice', String(n++)) : () => randomUUID(),
            },
            isNew: true,
            onRace: 'conflict',
            ...(retryable
              ? { eventId: (i: number) => deterministicId(labelId, 'create', retryable.hash, String(i)) }
              : {}),
            append: (events, expectedRevision) =>
              names.appendNamed(
                auth.tenantId,
                labelId,
                { before: null, after: normalizeLabelName(body.name), keepReservationOnFailure: retryable !== null },
                () => store.append(stream, events, { expectedRevision }),
              ),
          },
        );
        const label = toLabel(result.after.definition!, await names.orderOf(auth.tenantId, labelId), result.revision);
        return { body: label, position: result.position };
      },
    ),
  );

  registerEndpoint(app, endpoints.updateMedicalInstitutionLabel, async ({ params, body, auth, request, reply }) => {
    const stream = streamId(medicalInstitutionLabelAggregate, params.id);
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream,
        decider: labelDecider,
        command: { type: 'DefineLabel', labelId: params.id, create: false, input: body, newId: () => randomUUID() },
        ifMatch: revisionIfMatch(request.headers['if-match']),
        onRace: 'conflict',
        append: (events, expectedRevision, { before, after }) =>
          names.appendNamed(
            auth.tenantId,
            params.id,
            { before: normalizeName(before), after: normalizeName(after) },
            () => store.append(stream, events, { expectedRevision }),
          ),
      },
    );
    if (result.position) reply.position(result.position);
    void reply.header('etag', etagOf(result.revision));
    return toLabel(result.after.definition!, await names.orderOf(auth.tenantId, params.id), result.revision);
  });

  registerEndpoint(app, endpoints.deleteMedicalInstitutionLabel, async ({ params, auth, request, reply }) => {
    const stream = streamId(medicalInstitutionLabelAggregate, params.id);
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream,
        decider: labelDecider,
        command: { type: 'DeleteLabel', labelId: params.id },
        ifMatch: revisionIfMatch(request.headers['if-match']),
        onRace: 'conflict',
        append: (events, expectedRevision, { before }) =>
          names.appendNamed(auth.tenantId, params.id, { before: normalizeName(before), after: null }, () =>
            store.append(stream, events, { expectedRevision }),
          ),
      },
    );
    if (result.position) reply.position(result.position);
    return null;
  });

  registerEndpoint(app, endpoints.orderMedicalInstitutionLabels, async ({ body, auth, request, reply }) => {
    // The facts the order is checked against, from the labels' own streams: the listed labels, and
    // every other label the command side knows of (a reservation whose create failed is no label).
    const listed = await Promise.all(body.label_ids.map((id) => loadLabel(store, auth.tenantId, id)));
    const others = (await names.labelIds(auth.tenantId)).filter((id) => !body.label_ids.includes(id));
    const unlisted = await Promise.all(
      others.map(async (id) => ({ id, ...(await loadLabel(store, auth.tenantId, id)) })),
    );
    const live = new Set([
      ...body.label_ids.filter((_, i) => listed[i]!.state.status === 'active'),
      ...unlisted.filter((l) => l.state.status === 'active').map((l) => l.id),
    ]);
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: streamId(medicalInstitutionLabelOrderAggregate, auth.tenantId),
        decider: labelOrderDecider,
        command: { type: 'ReorderLabels', labelIds: body.label_ids, liveLabelIds: live },
        // The order's version is its number of saves (0 before the first), answered as ETag.
        ifMatch: orderIfMatch(request.headers['if-match']),
        onRace: 'conflict',
      },
    );
    await names.reorder(auth.tenantId, body.label_ids);
    if (result.position) reply.position(result.position);
    void reply.header('etag', etagOf(result.revision + 1));
    return listed.map((l, i) => toLabel(l.state.definition!, i, l.events.at(-1)!.revision));
  });
}
