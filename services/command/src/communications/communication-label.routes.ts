import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { endpoints, type CommunicationLabel } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { communicationLabelsAggregate } from '@renkei/domain';
import { streamId, type EventStore } from '@renkei/event-store';
import { registerEndpoint } from '@renkei/service-kit';
import { etagOf, readIfMatch } from '../shared/command-context.ts';
import { handleCommand } from '../shared/command-handler.ts';
import { deterministicId } from '../shared/deterministic-id.ts';
import { idempotentCreate } from '../shared/idempotency.ts';
import { communicationLabelsDecider, type CommunicationLabelsState } from './communication-label.decider.ts';

export interface CommunicationLabelRouteDeps {
  db: Database;
  store: EventStore;
}

function toLabels(state: CommunicationLabelsState): CommunicationLabel[] {
  return state.labels.map((d, order) => ({
    id: d.label_id,
    name: d.name,
    communication_type: d.communication_type,
    component_type: d.component_type,
    order,
    description: d.description,
    selections: d.selections,
    is_required: d.is_required,
    version: state.versions[d.label_id] ?? 0,
  }));
}

const labelOf = (state: CommunicationLabelsState, labelId: string) => toLabels(state).find((l) => l.id === labelId)!;

/** If-Match on one label's number of saves (the tenant's stream holds all its labels). */
function labelIfMatch(header: string | string[] | undefined, labelId: string) {
  const expected = readIfMatch(header);
  return expected === null
    ? null
    : { matches: (state: CommunicationLabelsState) => (state.versions[labelId] ?? -1) === expected };
}

/** If-Match on the order's number of saves. */
function orderIfMatch(header: string | string[] | undefined) {
  const expected = readIfMatch(header);
  return expected === null ? null : { matches: (state: CommunicationLabelsState) => state.orderVersion === expected };
}

export function registerCommunicationLabelRoutes(app: FastifyInstance, deps: CommunicationLabelRouteDeps): void {
  const { db, store } = deps;
  const labelsStream = (tenantId: string) => streamId(communicationLabelsAggregate, tenantId);

  registerEndpoint(app, endpoints.createCommunicationLabel, async ({ body, auth, request, reply }) =>
    idempotentCreate(
      db,
      {
        request,
        reply,
        tenantId: auth.tenantId,
        endpoint: endpoints.createCommunicationLabel.id,
        hashed: body,
        etag: (l: CommunicationLabel) => etagOf(l.version),
      },
      async (labelId, retryable) => {
        let n = 0;
        const result = await handleCommand(
          { store, auth, requestId: request.id },
          {
            stream: labelsStream(auth.tenantId),
            decider: communicationLabelsDecider,
            command: {
              type: 'DefineCommunicationLabel',
              labelId,
              create: true,
              input: body,
              newId: retryable ? () => deterministicId(labelId, 'choice', String(n++)) : () => randomUUID(),
            },
            // Another label saved meanwhile: decide again (names are checked against the fresh list).
            onRace: 'recompute',
            ...(retryable
              ? { eventId: (i: number) => deterministicId(labelId, 'create', retryable.hash, String(i)) }
              : {}),
          },
        );
        return { body: labelOf(result.after, labelId), position: result.position };
      },
    ),
  );

  registerEndpoint(app, endpoints.updateCommunicationLabel, async ({ params, body, auth, request, reply }) => {
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: labelsStream(auth.tenantId),
        decider: communicationLabelsDecider,
        command: {
          type: 'DefineCommunicationLabel',
          labelId: params.id,
          create: false,
          input: body,
          newId: () => randomUUID(),
        },
        ifMatch: labelIfMatch(request.headers['if-match'], params.id),
        onRace: 'recompute',
      },
    );
    if (result.position) reply.position(result.position);
    const label = labelOf(result.after, params.id);
    void reply.header('etag', etagOf(label.version));
    return label;
  });

  registerEndpoint(app, endpoints.deleteCommunicationLabel, async ({ params, auth, request, reply }) => {
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: labelsStream(auth.tenantId),
        decider: communicationLabelsDecider,
        command: { type: 'DeleteCommunicationLabel', labelId: params.id },
        ifMatch: labelIfMatch(request.headers['if-match'], params.id),
        onRace: 'recompute',
      },
    );
    if (result.position) reply.position(result.position);
    return null;
  });

  registerEndpoint(app, endpoints.orderCommunicationLabels, async ({ body, auth, request, reply }) => {
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: labelsStream(auth.tenantId),
        decider: communicationLabelsDecider,
        command: { type: 'ReorderCommunicationLabels', labelIds: body.label_ids },
        // The order's version is its number of saves, as for institution labels: a stale one is a 409.
        ifMatch: orderIfMatch(request.headers['if-match']),
        // A label added meanwhile is not in the client's list: the order is refused, not guessed.
        onRace: 'recompute',
      },
    );
    if (result.position) reply.position(result.position);
    void reply.header('etag', etagOf(result.after.orderVersion));
    return toLabels(result.after);
  });
}
