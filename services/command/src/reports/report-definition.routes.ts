import type { FastifyInstance } from 'fastify';
import {
  endpoints,
  reportKinds,
  type ReportAlertSettings,
  type ReportDefinition,
  type ReportKind,
  type UserRef,
} from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { reportDefinitionAggregate, type ReportDefinitionEvent } from '@renkei/domain';
import { streamId, type EventStore } from '@renkei/event-store';
import { registerEndpoint, type AuthContext } from '@renkei/service-kit';
import { accountRefs } from '../communications/communication-facts.ts';
import { etagOf, readIfMatch } from '../shared/command-context.ts';
import { handleCommand, type CommandResult } from '../shared/command-handler.ts';
import { deterministicId } from '../shared/deterministic-id.ts';
import { callerRef } from '../shared/facts.ts';
import { idempotentCreate } from '../shared/idempotency.ts';
import {
  reportDefinitionDecider,
  type ReportDefinitionCommand,
  type ReportDefinitionState,
} from './report-definition.decider.ts';

export interface ReportDefinitionRouteDeps {
  db: Database;
  store: EventStore;
}

const stream = (id: string) => streamId(reportDefinitionAggregate, id);

/** The write endpoints of one kind (the four kinds' entries share one shape). */
const kindEndpoints = {
  area_reports: {
    create: endpoints.areaReportsCreateDefinition,
    update: endpoints.areaReportsUpdateDefinition,
    remove: endpoints.areaReportsDeleteDefinition,
  },
  communication_reports: {
    create: endpoints.communicationReportsCreateDefinition,
    update: endpoints.communicationReportsUpdateDefinition,
    remove: endpoints.communicationReportsDeleteDefinition,
  },
  medical_institution_reports: {
    create: endpoints.medicalInstitutionReportsCreateDefinition,
    update: endpoints.medicalInstitutionReportsUpdateDefinition,
    remove: endpoints.medicalInstitutionReportsDeleteDefinition,
  },
  own_department_reports: {
    create: endpoints.ownDepartmentReportsCreateDefinition,
    update: endpoints.ownDepartmentReportsUpdateDefinition,
    remove: endpoints.ownDepartmentReportsDeleteDefinition,
  },
} satisfies Record<ReportKind, unknown>;

/** If-Match on the definition's own version (not the stream revision: the worker's alerts move that). */
function versionIfMatch(header: string | string[] | undefined) {
  const expected = readIfMatch(header);
  return expected === null
    ? null
    : { matches: (state: ReportDefinitionState) => state.status !== 'active' || state.version === expected };
}

export function registerReportDefinitionRoutes(app: FastifyInstance, deps: ReportDefinitionRouteDeps): void {
  const { db, store } = deps;

  /** The definition as answered after a write: created by the first event's account, at its time. */
  async function toDefinition(
    auth: AuthContext,
    id: string,
    result: CommandResult<ReportDefinitionState, ReportDefinitionEvent>,
  ): Promise<ReportDefinition> {
    const state = result.after;
    const first = result.stored[0];
    let createdBy: UserRef | null = null;
    const creator = first?.metadata.account_id;
    if (creator) {
      const refs = await accountRefs(store, auth.tenantId, [creator]);
      const storedName =
        first.type === 'ReportDefinitionCreated'
          ? (first.data as { created_by_name?: string | null }).created_by_name
          : null;
      createdBy = refs.get(creator) ?? { id: creator, name: storedName ?? '' };
    }
    const last = result.events.length > 0 ? new Date() : (result.stored.at(-1)?.created_at ?? new Date());
    return {
      id,
      kind: state.kind!,
      name: state.name,
      ...state.definition!,
      created_by: createdBy,
      created_at: (first?.created_at ?? new Date()).toISOString(),
      updated_at: last.toISOString(),
      alert_date: state.alertDate,
      version: state.version,
    };
  }

  async function write(
    auth: AuthContext,
    requestId: string,
    id: string,
    ifMatch: string | string[] | undefined,
    command: ReportDefinitionCommand,
  ) {
    return handleCommand(
      { store, auth, requestId },
      {
        stream: stream(id),
        decider: reportDefinitionDecider,
        command,
        ifMatch: versionIfMatch(ifMatch),
        onRace: 'conflict',
      },
    );
  }

  for (const kind of reportKinds) {
    const e = kindEndpoints[kind];

    registerEndpoint(app, e.create, async ({ body, auth, request, reply }) => {
      const caller = await callerRef(store, auth);
      return idempotentCreate(
        db,
        {
          request,
          reply,
          tenantId: auth.tenantId,
          endpoint: e.create.id,
          hashed: body,
          etag: (d: ReportDefinition) => etagOf(d.version),
        },
        async (reportDefinitionId, retryable) => {
          const result = await handleCommand(
            { store, auth, requestId: request.id },
            {
              stream: stream(reportDefinitionId),
              decider: reportDefinitionDecider,
              command: {
                type: 'CreateReportDefinition',
                reportDefinitionId,
                kind,
                input: body,
                createdByName: caller.name || null,
              },
              isNew: true,
              onRace: 'conflict',
              ...(retryable
                ? { eventId: (i: number) => deterministicId(reportDefinitionId, 'create', retryable.hash, String(i)) }
                : {}),
            },
          );
          const now = new Date().toISOString();
          const state = result.after;
          return {
            body: {
              id: reportDefinitionId,
              kind,
              name: state.name,
              ...state.definition!,
              created_by: caller,
              created_at: now,
              updated_at: now,
              alert_date: null,
              version: state.version,
            },
            position: result.position,
          };
        },
      );
    });

    registerEndpoint(app, e.update, async ({ params, body, auth, request, reply }) => {
      const result = await write(auth, request.id, params.id, request.headers['if-match'], {
        type: 'UpdateReportDefinition',
        reportDefinitionId: params.id,
        kind,
        input: body,
      });
      if (result.position) reply.position(result.position);
      void reply.header('etag', etagOf(result.after.version));
      return toDefinition(auth, params.id, result);
    });

    registerEndpoint(app, e.remove, async ({ params, auth, request, reply }) => {
      const result = await write(auth, request.id, params.id, request.headers['if-match'], {
        type: 'DeleteReportDefinition',
        reportDefinitionId: params.id,
        kind,
      });
      if (result.position) reply.position(result.position);
      return null;
    });
  }

  registerEndpoint(
    app,
    endpoints.medicalInstitutionReportsUpdateAlertSettings,
    async ({ params, body, auth, request, reply }) => {
      const accounts = await accountRefs(store, auth.tenantId, body.notify_user_ids);
      // A whole-value replace: a lost race is decided again on the newer definition (If-Match, when
      // sent, still guards against a stale screen).
      const result = await handleCommand(
        { store, auth, requestId: request.id },
        {
          stream: stream(params.id),
          decider: reportDefinitionDecider,
          command: {
            type: 'ChangeReportAlertSettings',
            reportDefinitionId: params.id,
            kind: 'medical_institution_reports',
            settings: body,
            knownAccountIds: new Set(accounts.keys()),
          },
          ifMatch: versionIfMatch(request.headers['if-match']),
          onRace: 'recompute',
        },
      );
      if (result.position) reply.position(result.position);
      void reply.header('etag', etagOf(result.after.version));
      const settings: ReportAlertSettings = result.after.alertSettings;
      return settings;
    },
  );
}
