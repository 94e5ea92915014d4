import type { Kysely } from 'kysely';
import type { RecordedEvent } from '@renkei/event-store';
import {
  defineReactor,
  repeatUntilAborted,
  waitForPosition,
  type Reactor,
  type ReactorContext,
} from '@renkei/projections';
import { reportDefinitionsProjection, reportSources } from '@renkei/read-models';
import {
  alertedDefinitions,
  evaluateReportAlert,
  jstMonth,
  migrateReportAlertRuns,
  reportDefinitionsReady,
} from '../reports/report-alert-evaluation.ts';
import { figureEvents, lastFigureChangeByTenant } from './figure-events.ts';
import { roundOfPages } from './month-turn-round.ts';

export interface ReportAlertOptions {
  /** Now (tests move it). */
  clock?: () => Date;
  /** How often the month-turn loop looks for definitions not yet evaluated this month (default 10 minutes). */
  intervalMs?: number;
}

/** What evaluating a tenant's report alerts after its figures changed reads: the report's tables and the definitions. */
const importReads = () => [
  ...(reportSources.medical_institution_reports?.reads ?? []),
  reportDefinitionsProjection.name,
];

async function figuresChanged(event: RecordedEvent, ctx: ReactorContext, now: Date) {
  const db = ctx.db.kysely as Kysely<unknown>;
  // A first deploy builds the definitions read model while this reactor reads the history: nothing to
  // evaluate yet (the month-turn loop catches up once it is live).
  if (!(await reportDefinitionsReady(db))) return;
  const tenantId = event.metadata.tenant_id;
  // The changed figures must be in the rollups the report reads before it is run.
  if (!(await waitForPosition(ctx.db, importReads(), event.position, 30_000, ctx.signal)))
    throw new Error(`report alerts: the read models did not reach ${event.type} ${event.id}`);
  const metadata = { correlation_id: event.metadata.correlation_id, causation_id: event.id };
  for (const definition of await alertedDefinitions(db, { tenantId })) {
    try {
      await evaluateReportAlert(ctx.db, ctx.store, { definition, now, metadata });
    } catch (error) {
      // One broken definition does not keep the tenant's others from alerting; the month-turn loop
      // evaluates it again if it never ran this month.
      ctx.logger?.warn(
        { err: error, tenant_id: tenantId, report_definition_id: definition.id },
        'report alerts: a definition failed after the figures changed',
      );
    }
  }
}

/**
 * Runs the alerts of institution reports (docs/decisions.md, "Reports, dashboards and the maps"): every
 * enabled alert of a tenant after its referral figures changed (an upload completed or withdrawn, a hand
 * match, a hand-entered referral — the events the alert conditions follow; once per tenant and batch), and, in a
 * loop, every enabled alert not yet run this month (the month turned, its settings changed, or the
 * worker was down).
 */
export function createReportAlertReactor(options: ReportAlertOptions = {}): Reactor {
  const now = () => options.clock?.() ?? new Date();
  return defineReactor({
    name: 'report_alert',
    eventTypes: [...figureEvents],
    batchSize: 20,
    async handle(events, ctx) {
      await migrateReportAlertRuns(ctx.db);
      for (const event of lastFigureChangeByTenant(events).values()) await figuresChanged(event, ctx, now());
    },
    async background(ctx) {
      await repeatUntilAborted(
        ctx.signal,
        options.intervalMs ?? 10 * 60_000,
        () => evaluateMissingReportAlerts(ctx, now()),
        (error) => ctx.logger?.warn({ err: error }, 'report alerts: the month-turn round failed, will retry'),
      );
    },
  });
}

/**
 * One round of the month-turn loop: runs the enabled alerts with no run this month at their current
 * version, a page at a time. A definition that fails (logged) is tried again next round without
 * holding back the ones after it. Returns how many ran.
 */
export async function evaluateMissingReportAlerts(ctx: ReactorContext, at: Date): Promise<number> {
  const db = ctx.db.kysely as Kysely<unknown>;
  if (!(await reportDefinitionsReady(db))) return 0;
  await migrateReportAlertRuns(ctx.db);
  const month = jstMonth(at);
  return roundOfPages({
    page: (after, limit) => alertedDefinitions(db, { missingMonth: month, after, limit }),
    run: async (definition) => {
      await evaluateReportAlert(ctx.db, ctx.store, { definition, now: at });
      return true;
    },
    failed: (definition, error) =>
      ctx.logger?.warn(
        { err: error, tenant_id: definition.tenant_id, report_definition_id: definition.id },
        'report alerts: a definition failed; it is tried again next round',
      ),
    signal: ctx.signal,
  });
}
