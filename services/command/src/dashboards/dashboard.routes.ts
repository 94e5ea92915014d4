import type { FastifyInstance } from 'fastify';
import { endpoints, type Dashboard, type DashboardInput, type ReportKind, type UserRef } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import {
  dashboardAggregate,
  ownDepartmentsAggregate,
  reportDefinitionAggregate,
  type DashboardEvent,
} from '@renkei/domain';
import { streamId, type EventStore } from '@renkei/event-store';
import { registerEndpoint, type AuthContext } from '@renkei/service-kit';
import { accountRefs } from '../communications/communication-facts.ts';
import { loadLabel } from '../labels/label-names.ts';
import { ownDepartmentsDecider } from '../phases/phase-master.decider.ts';
import { reportDefinitionDecider } from '../reports/report-definition.decider.ts';
import { etagOf, revisionIfMatch } from '../shared/command-context.ts';
import { handleCommand, type CommandResult } from '../shared/command-handler.ts';
import { deterministicId } from '../shared/deterministic-id.ts';
import { callerRef, readState } from '../shared/facts.ts';
import { idempotentCreate } from '../shared/idempotency.ts';
import { dashboardDecider, type DashboardFacts, type DashboardState } from './dashboard.decider.ts';

export interface DashboardRouteDeps {
  db: Database;
  store: EventStore;
}

const stream = (id: string) => streamId(dashboardAggregate, id);

export function registerDashboardRoutes(app: FastifyInstance, deps: DashboardRouteDeps): void {
  const { db, store } = deps;

  /** The tenant's departments, the label and the report definitions the input names (their own streams). */
  async function factsOf(tenantId: string, input: DashboardInput): Promise<DashboardFacts> {
    const reportIds = [...new Set(input.contents.map((c) => c.report_id))];
    const [departments, label, reports] = await Promise.all([
      readState(store, tenantId, streamId(ownDepartmentsAggregate, tenantId), ownDepartmentsDecider),
      input.medical_institution_label_id ? loadLabel(store, tenantId, input.medical_institution_label_id) : null,
      Promise.all(
        reportIds.map(async (id) => {
          const { state } = await readState(
            store,
            tenantId,
            streamId(reportDefinitionAggregate, id),
            reportDefinitionDecider,
          );
          return state.status === 'active' && state.kind ? ([[id, state.kind]] as [string, ReportKind][]) : [];
        }),
      ),
    ]);
    return {
      ownDepartmentIds: new Set(departments.state.map((d) => d.id)),
      institutionLabelIds: new Set(
        label?.state.status === 'active' && input.medical_institution_label_id
          ? [input.medical_institution_label_id]
          : [],
      ),
      reports: new Map(reports.flat()),
    };
  }

  async function toDashboard(
    auth: AuthContext,
    result: CommandResult<DashboardState, DashboardEvent>,
    createdBy: UserRef | null,
  ): Promise<Dashboard> {
    const f = result.after.fields!;
    let creator = createdBy;
    const first = result.stored[0];
    if (!creator && first?.metadata.account_id) {
      const refs = await accountRefs(store, auth.tenantId, [first.metadata.account_id]);
      creator = refs.get(first.metadata.account_id) ?? { id: first.metadata.account_id, name: '' };
    }
    return {
      id: f.dashboard_id,
      name: f.name,
      filter_department: f.filter_department,
      medical_institution_label_id: f.medical_institution_label_id,
      contents: f.contents,
      created_by: creator,
      updated_at: (result.events.length > 0
        ? new Date()
        : (result.stored.at(-1)?.created_at ?? new Date())
      ).toISOString(),
      version: result.revision,
    };
  }

  registerEndpoint(app, endpoints.createDashboard, async ({ body, auth, request, reply }) => {
    const [facts, caller] = await Promise.all([factsOf(auth.tenantId, body), callerRef(store, auth)]);
    return idempotentCreate(
      db,
      {
        request,
        reply,
        tenantId: auth.tenantId,
        endpoint: endpoints.createDashboard.id,
        hashed: body,
        etag: (d: Dashboard) => etagOf(d.version),
      },
      async (dashboardId, retryable) => {
        const result = await handleCommand(
          { store, auth, requestId: request.id },
          {
            stream: stream(dashboardId),
            decider: dashboardDecider,
            command: { type: 'CreateDashboard', dashboardId, input: body, createdByName: caller.name || null, facts },
            isNew: true,
            onRace: 'conflict',
            ...(retryable
              ? { eventId: (i: number) => deterministicId(dashboardId, 'create', retryable.hash, String(i)) }
              : {}),
          },
        );
        return { body: await toDashboard(auth, result, caller), position: result.position };
      },
    );
  });

  registerEndpoint(app, endpoints.updateDashboard, async ({ params, body, auth, request, reply }) => {
    const facts = await factsOf(auth.tenantId, body);
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: stream(params.id),
        decider: dashboardDecider,
        command: { type: 'UpdateDashboard', dashboardId: params.id, input: body, facts },
        ifMatch: revisionIfMatch(request.headers['if-match']),
        onRace: 'conflict',
      },
    );
    if (result.position) reply.position(result.position);
    void reply.header('etag', etagOf(result.revision));
    return toDashboard(auth, result, null);
  });

  registerEndpoint(app, endpoints.deleteDashboard, async ({ params, auth, request, reply }) => {
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: stream(params.id),
        decider: dashboardDecider,
        command: { type: 'DeleteDashboard', dashboardId: params.id },
        ifMatch: revisionIfMatch(request.headers['if-match']),
        onRace: 'conflict',
      },
    );
    if (result.position) reply.position(result.position);
    return null;
  });
}
