import type { FastifyInstance } from 'fastify';
import { HttpError, endpoints, type Alert, type AlertCondition, type AlertConditionInput } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import {
  alertAggregate,
  alertConditionAggregate,
  tagAggregate,
  type AlertConditionCreated,
  type AlertState,
} from '@renkei/domain';
import { comparePositions, streamId, type EventStore, type Position } from '@renkei/event-store';
import { departments, facilityTypes } from '@renkei/institution-master';
import { registerEndpoint, type AuthContext } from '@renkei/service-kit';
import { handleCommand } from '../shared/command-handler.ts';
import { deterministicId } from '../shared/deterministic-id.ts';
import { readState } from '../shared/facts.ts';
import { idempotentCreate } from '../shared/idempotency.ts';
import { createLabelNames, loadLabel } from '../labels/label-names.ts';
import { tagDecider } from '../tags/tag.decider.ts';
import { alertConditionDecider, type AlertConditionFacts } from './alert-condition.decider.ts';
import { alertDecider } from './alert.decider.ts';

export interface AlertRouteDeps {
  db: Database;
  store: EventStore;
}

const facilityTypeIds = new Set(facilityTypes.map((t) => String(t.id)));
const departmentIds = new Set(departments.map((d) => String(d.id)));

function toAlertCondition(f: AlertConditionCreated, createdAt: Date): AlertCondition {
  return {
    id: f.condition_id,
    name: f.name,
    type: f.type,
    triggers: f.triggers,
    filters: f.filters,
    // Just checked against the tenant's tags and areas.
    has_invalid: false,
    created_date: createdAt.toISOString(),
  };
}

function toAlert(state: AlertState): Alert {
  const e = state.evaluation!;
  return {
    id: e.alert_id,
    name: e.name,
    condition_summary: e.condition_summary,
    condition_parameters: e.condition_parameters,
    alert_date: e.alert_date,
    target_count: e.target_count,
    is_archived: state.status === 'archived',
  };
}

const later = (a: Position | null, b: Position | null) => (a === null || (b && comparePositions(b, a) > 0) ? b : a);

/** At most this many alert streams are read and written at once by a bulk archive. */
const bulkConcurrency = 8;

export function registerAlertRoutes(app: FastifyInstance, deps: AlertRouteDeps): void {
  const { db, store } = deps;
  const labelNames = createLabelNames(db, store);

  /** The tenant's live tags among those named, and the areas of its live area labels (their own streams). */
  async function facts(tenantId: string, input: AlertConditionInput): Promise<AlertConditionFacts> {
    const tagIds = [...new Set(input.filters.tag_ids)];
    const [tags, areaIds] = await Promise.all([
      Promise.all(
        tagIds.map(async (id) => {
          const { state } = await readState(store, tenantId, streamId(tagAggregate, id), tagDecider);
          return state.status === 'active' ? [id] : [];
        }),
      ),
      input.filters.area === null
        ? Promise.resolve(new Set<string>())
        : labelNames.labelIds(tenantId).then(async (ids) => {
            const labels = await Promise.all(ids.map((id) => loadLabel(store, tenantId, id)));
            return new Set(
              labels.flatMap(({ state }) =>
                state.status === 'active' && state.definition!.component_type === 'area'
                  ? state.definition!.areas.map((a) => a.id)
                  : [],
              ),
            );
          }),
    ]);
    return { tagIds: new Set(tags.flat()), areaIds, facilityTypeIds, departmentIds };
  }

  registerEndpoint(app, endpoints.createAlertCondition, async ({ body, auth, request, reply }) => {
    const conditionFacts = await facts(auth.tenantId, body);
    return idempotentCreate(
      db,
      { request, reply, tenantId: auth.tenantId, endpoint: endpoints.createAlertCondition.id, hashed: body },
      async (conditionId, retryable) => {
        const result = await handleCommand(
          { store, auth, requestId: request.id },
          {
            stream: streamId(alertConditionAggregate, conditionId),
            decider: alertConditionDecider,
            command: { type: 'CreateAlertCondition', conditionId, input: body, facts: conditionFacts },
            isNew: true,
            onRace: 'conflict',
            ...(retryable
              ? { eventId: (i: number) => deterministicId(conditionId, 'create', retryable.hash, String(i)) }
              : {}),
          },
        );
        return { body: toAlertCondition(result.after.fields!, new Date()), position: result.position };
      },
    );
  });

  registerEndpoint(app, endpoints.deleteAlertCondition, async ({ params, auth, request, reply }) => {
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: streamId(alertConditionAggregate, params.id),
        decider: alertConditionDecider,
        command: { type: 'DeleteAlertCondition', conditionId: params.id },
        onRace: 'conflict',
      },
    );
    if (result.position) reply.position(result.position);
    return null;
  });

  const archive = (auth: AuthContext, requestId: string, alertId: string, retryable: { hash: string } | null) =>
    handleCommand(
      { store, auth, requestId },
      {
        stream: streamId(alertAggregate, alertId),
        decider: alertDecider,
        command: { type: 'ArchiveAlert', alertId },
        // An evaluation updating the alert meanwhile does not change what archiving means.
        onRace: 'recompute',
        ...(retryable
          ? { eventId: (i: number) => deterministicId(alertId, 'archive', retryable.hash, String(i)) }
          : {}),
      },
    );

  // Both POSTs honour Idempotency-Key as every command POST does: a retry answers what the first did.
  registerEndpoint(app, endpoints.archiveAlert, async ({ params, auth, request, reply }) =>
    idempotentCreate(
      db,
      { request, reply, tenantId: auth.tenantId, endpoint: endpoints.archiveAlert.id, hashed: { id: params.id } },
      async (_operationId, retryable) => {
        const result = await archive(auth, request.id, params.id, retryable);
        return { body: toAlert(result.after), position: result.position };
      },
    ),
  );

  registerEndpoint(app, endpoints.bulkArchiveAlerts, async ({ body, auth, request, reply }) =>
    idempotentCreate(
      db,
      { request, reply, tenantId: auth.tenantId, endpoint: endpoints.bulkArchiveAlerts.id, hashed: body },
      async (_operationId, retryable) => {
        const ids = [...new Set(body.alert_ids)];
        let count = 0;
        let position: Position | null = null;
        for (let i = 0; i < ids.length; i += bulkConcurrency) {
          const results = await Promise.all(
            ids.slice(i, i + bulkConcurrency).map(async (id) => {
              try {
                return await archive(auth, request.id, id, retryable);
              } catch (error) {
                // Another tenant's or an unknown id changes nothing: the count says what did.
                if (error instanceof HttpError && error.status === 404) return null;
                throw error;
              }
            }),
          );
          for (const result of results) {
            if (!result?.position) continue;
            count++;
            position = later(position, result.position);
          }
        }
        return { body: { count }, position };
      },
    ),
  );
}
