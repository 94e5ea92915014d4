import { sql, type Kysely } from 'kysely';
import type { AlertConditionType, AlertFilters, AlertTriggers } from '@renkei/contracts';
import { alertConditionAggregate, AlertConditionCreated, parseAlertConditionEvent } from '@renkei/domain';
import { readStreamOrEmpty, streamId, type RecordedEvent } from '@renkei/event-store';
import {
  defineReactor,
  repeatUntilAborted,
  waitForPosition,
  type Reactor,
  type ReactorContext,
} from '@renkei/projections';
import {
  alertConditionInvalid,
  alertsProjection,
  communicationsProjection,
  medicalInstitutionCrmProjection,
  referralsProjection,
  tagsProjection,
} from '@renkei/read-models';
import {
  evaluateCondition,
  evaluatedMonth,
  migrateAlertEvaluations,
  type EvaluatedCondition,
} from '../alerts/alert-evaluation.ts';
import { figureEvents, lastFigureChangeByTenant } from './figure-events.ts';
import { roundOfPages, type Cursor } from './month-turn-round.ts';

export interface AlertEvaluationOptions {
  /** Now (tests move it). */
  clock?: () => Date;
  /** How often the month-turn loop looks for conditions not yet evaluated for the month (default 10 minutes). */
  intervalMs?: number;
}

/** Whether the condition's own stream says it was deleted (the read model may lag). */
async function deleted(ctx: ReactorContext, tenantId: string, conditionId: string) {
  const events = await readStreamOrEmpty(ctx.store, streamId(alertConditionAggregate, conditionId), tenantId);
  return events.some((e) => parseAlertConditionEvent(e).type === 'AlertConditionDeleted');
}

/** The projections whose tables an evaluation reads. */
const evaluationReads = [
  referralsProjection.name,
  communicationsProjection.name,
  medicalInstitutionCrmProjection.name,
  tagsProjection.name,
];
/** What re-evaluating a tenant after an import reads: the evaluation's tables and its conditions. */
const importReads = [...evaluationReads, alertsProjection.name];

interface ConditionRow {
  tenant_id: string;
  id: string;
  name: string;
  type: AlertConditionType;
  triggers: AlertTriggers;
  filters: AlertFilters;
}

const toCondition = (r: ConditionRow): EvaluatedCondition => ({
  id: r.id,
  name: r.name,
  type: r.type,
  triggers: r.triggers,
  filters: r.filters,
});

/**
 * Live, valid conditions from the read model: of one tenant (after an import), or of every tenant that
 * have no evaluation for `month` yet (the month-turn loop), a page at a time after `after` (created_at,
 * id): a condition left unevaluated (its month's data not in yet, or it failed) does not hold back the
 * ones after it.
 */
async function conditionsToEvaluate(
  db: Kysely<unknown>,
  which: { tenantId: string } | { missingMonth: string; after: Cursor | null; limit: number },
): Promise<(ConditionRow & Cursor)[]> {
  const { rows } =
    'tenantId' in which
      ? await sql<ConditionRow & Cursor>`
          SELECT c.tenant_id, c.id, c.name, c.type, c.triggers, c.filters, c.created_at::text AS created_at
            FROM rm.alert_conditions c
           WHERE c.tenant_id = ${which.tenantId} AND NOT ${alertConditionInvalid('c')}
           ORDER BY c.created_at, c.id`.execute(db)
      : await sql<ConditionRow & Cursor>`
          SELECT c.tenant_id, c.id, c.name, c.type, c.triggers, c.filters, c.created_at::text AS created_at
            FROM rm.alert_conditions c
           WHERE NOT EXISTS (SELECT 1 FROM alert_evaluation.evaluations e WHERE e.condition_id = c.id AND e.month = ${which.missingMonth}::date)
             AND NOT ${alertConditionInvalid('c')}
             ${which.after ? sql`AND (c.created_at, c.id) > (${which.after.created_at}::timestamptz, ${which.after.id}::uuid)` : sql``}
           ORDER BY c.created_at, c.id
           LIMIT ${which.limit}`.execute(db);
  return rows;
}

/** Whether the alerts read model exists yet (the worker creates it with the other projections). */
async function readModelReady(db: Kysely<unknown>) {
  const { rows } = await sql<{ present: boolean }>`
    SELECT to_regclass('rm.alert_conditions') IS NOT NULL AND to_regclass('rm.referral_institution_rollups') IS NOT NULL
           AND to_regclass('rm.mi_last_visits') IS NOT NULL AND to_regclass('rm.tags') IS NOT NULL AS present`.execute(
    db,
  );
  return rows[0]?.present ?? false;
}

async function conditionCreated(event: RecordedEvent, ctx: ReactorContext, now: Date) {
  const tenantId = event.metadata.tenant_id;
  const metadata = { correlation_id: event.metadata.correlation_id, causation_id: event.id };
  const created = AlertConditionCreated.parse(event.data);
  if (await deleted(ctx, tenantId, created.condition_id)) return;
  // What the user did before creating it (tagging an institution, a visit) is part of the answer: the
  // read models the evaluation reads first take everything up to the condition.
  if (!(await waitForPosition(ctx.db, evaluationReads, event.position, 30_000, ctx.signal)))
    throw new Error(`alert evaluation: the read models did not reach condition ${created.condition_id}`);
  // The user sees a result at once: the last complete month, evaluated now.
  await evaluateCondition(ctx.db, ctx.store, {
    tenantId,
    condition: { id: created.condition_id, ...created },
    now,
    metadata,
  });
}

/**
 * Every live, valid condition of the tenant evaluated again once the read models hold `event` (the last
 * of the batch's events that changed the tenant's figures): the month's alert follows its data whenever
 * the data changes, not at the next upload or month.
 */
async function figuresChanged(event: RecordedEvent, ctx: ReactorContext, now: Date) {
  const tenantId = event.metadata.tenant_id;
  const metadata = { correlation_id: event.metadata.correlation_id, causation_id: event.id };
  const db = ctx.db.kysely as Kysely<unknown>;
  // A first deploy builds the alerts read model while this reactor reads the history: an event from
  // before it is live has no condition to read (the month-turn loop evaluates whatever is missing once
  // it is), and waiting for it could park the event.
  if (!(await readModelReady(db))) return;
  // Once the read models hold the change (rollups, the conditions, tags, labels, visits), every
  // condition of the tenant is evaluated again (an archived alert stays as it is).
  if (!(await waitForPosition(ctx.db, importReads, event.position, 30_000, ctx.signal)))
    throw new Error(`alert evaluation: the read models did not reach ${event.type} ${event.id}`);
  const month = evaluatedMonth(now);
  for (const row of await conditionsToEvaluate(db, { tenantId })) {
    try {
      if (await deleted(ctx, tenantId, row.id)) continue;
      await evaluateCondition(ctx.db, ctx.store, { tenantId, condition: toCondition(row), now, metadata });
    } catch (error) {
      // One broken condition does not keep the tenant's others from their figures: it is left
      // unevaluated for the month, so the month-turn loop tries it again.
      ctx.logger?.warn(
        { err: error, tenant_id: tenantId, condition_id: row.id, event_type: event.type },
        'alert evaluation: a condition failed after the figures changed; the month-turn loop retries it',
      );
      await sql`DELETE FROM alert_evaluation.evaluations WHERE condition_id = ${row.id}::uuid AND month = ${month}::date`
        .execute(db)
        .catch(() => undefined);
    }
  }
}

/**
 * Evaluates the tenants' alert conditions (docs/decisions.md, "Alerts and alert conditions"): a condition
 * right after it is created, every condition of a tenant after its referral figures changed (an upload
 * completed or withdrawn, a hand match, a hand-entered referral; once per tenant and batch), and every
 * condition not yet evaluated for the last complete month (the month turned, or the worker was down),
 * in a loop.
 */
export function createAlertEvaluationReactor(options: AlertEvaluationOptions = {}): Reactor {
  const now = () => options.clock?.() ?? new Date();
  return defineReactor({
    name: 'alert_evaluation',
    eventTypes: ['AlertConditionCreated', ...figureEvents],
    batchSize: 20,
    async handle(events, ctx) {
      await migrateAlertEvaluations(ctx.db);
      for (const event of events) if (event.type === 'AlertConditionCreated') await conditionCreated(event, ctx, now());
      for (const event of lastFigureChangeByTenant(events).values()) await figuresChanged(event, ctx, now());
    },
    async background(ctx) {
      await repeatUntilAborted(
        ctx.signal,
        options.intervalMs ?? 10 * 60_000,
        () => evaluateMissing(ctx, now()),
        (error) => ctx.logger?.warn({ err: error }, 'alert evaluation: the month-turn round failed, will retry'),
      );
    },
  });
}

/**
 * One round of the month-turn loop: evaluates the conditions with no evaluation for the month yet, a
 * page at a time in (created_at, id) order. A condition that waits for its month's data or fails (logged
 * with its id) stays unevaluated and is tried again next round; it neither stops the round nor holds
 * back the conditions after it. Returns how many were evaluated.
 */
export async function evaluateMissing(ctx: ReactorContext, at: Date): Promise<number> {
  const db = ctx.db.kysely as Kysely<unknown>;
  if (!(await readModelReady(db))) return 0;
  await migrateAlertEvaluations(ctx.db);
  const month = evaluatedMonth(at);
  return roundOfPages({
    page: (after, limit) => conditionsToEvaluate(db, { missingMonth: month, after, limit }),
    run: async (row) => {
      // Deleted while the read model lags: left for the next round, when its row is gone.
      if (await deleted(ctx, row.tenant_id, row.id)) return false;
      const outcome = await evaluateCondition(ctx.db, ctx.store, {
        tenantId: row.tenant_id,
        condition: toCondition(row),
        now: at,
        month,
      });
      return outcome.kind === 'evaluated';
    },
    failed: (row, error) =>
      ctx.logger?.warn(
        { err: error, tenant_id: row.tenant_id, condition_id: row.id },
        'alert evaluation: a condition failed; it is tried again next round',
      ),
    signal: ctx.signal,
  });
}
