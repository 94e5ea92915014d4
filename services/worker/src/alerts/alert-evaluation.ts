import { sql, type Kysely, type RawBuilder } from 'kysely';
import {
  alertConditionSummary,
  type AlertConditionType,
  type AlertFilters,
  type AlertTriggers,
} from '@renkei/contracts';
import { migrateModuleOnce, type Database } from '@renkei/db';
import {
  alertAggregate,
  alertIdOf,
  evaluationEvents,
  evolveAlert,
  initialAlertState,
  parseAlertEvent,
  stableJson,
  uuidV5,
  type AlertEvaluated,
} from '@renkei/domain';
import { readStreamOrEmpty, streamId, type EventMetadata, type EventStore } from '@renkei/event-store';
import { departments, facilityTypes } from '@renkei/institution-master';
import { alertConditionInvalid, rollupPieces } from '@renkei/read-models';
import { jstDay } from '../japan-time.ts';

/** A condition as evaluated: what its created event (or its read-model row) holds. */
export interface EvaluatedCondition {
  id: string;
  name: string;
  type: AlertConditionType;
  triggers: AlertTriggers;
  filters: AlertFilters;
}

/** One matched institution with the figures the alert keeps. */
export interface MatchedInstitution {
  id: string;
  referral_count: number;
  comparison_referral_count: number;
  last_visit_date: string | null;
}

/** The day in Japan of an instant (YYYY-MM-DD). */

/** The first day of the month `offset` months from the month of `day` (YYYY-MM-01). */
export function monthOf(day: string, offset = 0): string {
  const index = Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7)) - 1 + offset;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}-01`;
}

/** The month an evaluation at `now` is for: the last complete month in Japan. */
export const evaluatedMonth = (now: Date): string => monthOf(jstDay(now), -1);

/**
 * The institutions an alert watches are the tenant's: those with a referral in the 24 complete months
 * up to the evaluated month (the longest average a condition may ask for), those ever visited, and
 * those with one of the tenant's tags. Not the whole national master: "no visit for 90 days" over
 * 180,000 institutions the hospital never dealt with says nothing.
 */
const windowMonths = 24;
/** The average a `referral_average` filter reads when no trigger names its months. */
const defaultAverageMonths = 12;

/**
 * Every institution of the tenant that passes the condition's filters and all its triggers, with its
 * figures, in one set-wise statement over the per-institution rollups
 * (`rm.referral_institution_rollups`: the partner search's figures), the last visits
 * (`rm.mi_last_visits`) and the master. Order: the largest change first, then the longest without a
 * visit, then kana.
 */
export async function matchInstitutions(
  db: Kysely<unknown>,
  tenantId: string,
  condition: Pick<EvaluatedCondition, 'triggers' | 'filters'>,
  month: string,
  evaluatedOn: string,
): Promise<MatchedInstitution[]> {
  const { triggers: t, filters: f } = condition;
  const previous = monthOf(month, -1);
  const windowStart = monthOf(month, -(windowMonths - 1));
  const triggerMonths = t.referral_average?.months ?? defaultAverageMonths;
  const filterMonths = t.referral_average?.months ?? defaultAverageMonths;
  const count = sql`coalesce(fg.referral_count, 0)`;
  const comparison = sql`coalesce(fg.comparison_referral_count, 0)`;
  const average = (sum: RawBuilder<unknown>, months: number) => sql`(coalesce(${sum}, 0)::numeric / ${months}::int)`;
  const parts: RawBuilder<unknown>[] = [sql`true`];

  // Filters. Every parameter is cast: untyped, Postgres would take the type of the int expression it
  // is compared with, and a decimal or huge value stored before the contract's bounds would fail the
  // whole statement.
  if (f.prefecture) parts.push(sql`m.prefecture_code = ${Number(f.prefecture)}::int`);
  if (f.area)
    parts.push(sql`EXISTS (SELECT 1 FROM area_addresses aa WHERE m.prefecture_code = aa.prefecture
      AND (aa.city = '' OR m.city = aa.city OR strpos(m.address, aa.city) > 0))`);
  if (f.facility_type_ids.length > 0)
    parts.push(sql`m.facility_type_id = ANY(${sql.val(f.facility_type_ids.map(Number))}::int[])`);
  if (f.department_ids.length > 0) parts.push(sql`m.department_ids && ${sql.val(f.department_ids.map(Number))}::int[]`);
  if (f.tag_ids.length > 0)
    parts.push(sql`EXISTS (SELECT 1 FROM rm.mi_tags x WHERE x.tenant_id = ${tenantId} AND x.medical_institution_id = u.id
      AND x.tag_id = ANY(${sql.val(f.tag_ids)}::uuid[]))`);
  const range = (value: RawBuilder<unknown>, r: { min: number | null; max: number | null } | null) => {
    if (r?.min !== null && r?.min !== undefined) parts.push(sql`${value} >= ${r.min}::numeric`);
    if (r?.max !== null && r?.max !== undefined) parts.push(sql`${value} <= ${r.max}::numeric`);
  };
  range(count, f.referral_count);
  range(average(sql`fg.filter_sum`, filterMonths), f.referral_average);
  if (f.communication_visit === 'visited') parts.push(sql`lv.last_visit_date IS NOT NULL`);
  if (f.communication_visit === 'not_visited') parts.push(sql`lv.last_visit_date IS NULL`);

  // Triggers: every one given must hold.
  const changeCount = t.referral_change_count;
  if (changeCount)
    parts.push(
      changeCount.direction === 'decrease'
        ? sql`${comparison} - ${count} >= ${changeCount.count}::numeric`
        : sql`${count} - ${comparison} >= ${changeCount.count}::numeric`,
    );
  const changeRate = t.referral_change_rate;
  // A rate needs referrals the month before: from 0 no rate can be computed, so neither direction matches.
  if (changeRate)
    parts.push(
      changeRate.direction === 'decrease'
        ? sql`${comparison} > 0 AND (${comparison} - ${count})::numeric * 100 >= ${changeRate.rate}::numeric * ${comparison}`
        : sql`${comparison} > 0 AND (${count} - ${comparison})::numeric * 100 >= ${changeRate.rate}::numeric * ${comparison}`,
    );
  if (t.referral_count)
    parts.push(
      t.referral_count.comparison === 'gte'
        ? sql`${count} >= ${t.referral_count.count}::numeric`
        : sql`${count} <= ${t.referral_count.count}::numeric`,
    );
  if (t.referral_average) {
    const avg = average(sql`fg.trigger_sum`, triggerMonths);
    parts.push(
      t.referral_average.comparison === 'gte'
        ? sql`${avg} >= ${t.referral_average.average}::numeric`
        : sql`${avg} <= ${t.referral_average.average}::numeric`,
    );
  }
  if (t.communication_visit)
    parts.push(
      sql`(lv.last_visit_date IS NULL OR lv.last_visit_date <= ${evaluatedOn}::date - ${t.communication_visit.days_without_visit}::int)`,
    );

  // Each period as the fewest rollup rows (a whole 年度 is one row per institution, then quarters, then
  // months: the partner search's pieces), read in one pass over the keys they name.
  const window = rollupPieces({ from: windowStart, to: month });
  const triggerAverage = rollupPieces({ from: monthOf(month, -(triggerMonths - 1)), to: month });
  const filterAverage = rollupPieces({ from: monthOf(month, -(filterMonths - 1)), to: month });
  const within = (p: ReturnType<typeof rollupPieces>) =>
    sql`((r.span = 'fiscal_year' AND r.period_start = ANY(${sql.val(p.fiscal_year)}::date[]))
      OR (r.span = 'quarter' AND r.period_start = ANY(${sql.val(p.quarter)}::date[]))
      OR (r.span = 'month' AND r.period_start = ANY(${sql.val(p.month)}::date[])))`;
  const keys = new Map<string, { span: string; start: string }>();
  for (const p of [window, triggerAverage, filterAverage, { fiscal_year: [], quarter: [], month: [month, previous] }])
    for (const span of ['fiscal_year', 'quarter', 'month'] as const)
      for (const start of p[span]) keys.set(`${span}:${start}`, { span, start });
  const query = sql<MatchedInstitution>`
    WITH figures AS (
      SELECT r.medical_institution_id AS id,
             sum(r.referral_count) FILTER (WHERE r.span = 'month' AND r.period_start = ${month}::date)::int AS referral_count,
             sum(r.referral_count) FILTER (WHERE r.span = 'month' AND r.period_start = ${previous}::date)::int AS comparison_referral_count,
             sum(r.referral_count) FILTER (WHERE ${within(triggerAverage)}) AS trigger_sum,
             sum(r.referral_count) FILTER (WHERE ${within(filterAverage)}) AS filter_sum,
             bool_or(${within(window)}) AS in_window
        FROM unnest(${sql.val([...keys.values()].map((k) => k.span))}::text[], ${sql.val([...keys.values()].map((k) => k.start))}::date[]) AS k(span, period_start)
        JOIN rm.referral_institution_rollups r
          ON r.tenant_id = ${tenantId} AND r.span = k.span AND r.period_start = k.period_start
       GROUP BY r.medical_institution_id),
    universe AS (
      SELECT id FROM figures WHERE in_window
      UNION SELECT medical_institution_id FROM rm.mi_last_visits WHERE tenant_id = ${tenantId}
      UNION SELECT medical_institution_id FROM rm.mi_tags WHERE tenant_id = ${tenantId}),
    area_addresses AS (
      SELECT (ad.a ->> 'prefecture')::int AS prefecture, coalesce(ad.a ->> 'city_or_locality', '') AS city
        FROM rm.medical_institution_labels l
             CROSS JOIN LATERAL jsonb_array_elements(l.areas) AS la(area)
             CROSS JOIN LATERAL jsonb_array_elements(la.area -> 'addresses') AS ad(a)
       WHERE l.tenant_id = ${tenantId} AND l.component_type = 'area' AND la.area ->> 'id' = ${f.area ?? ''})
    SELECT u.id, ${count}::int AS referral_count, ${comparison}::int AS comparison_referral_count,
           to_char(lv.last_visit_date, 'YYYY-MM-DD') AS last_visit_date
      FROM universe u
      JOIN ref.medical_institutions m ON m.id = u.id
      LEFT JOIN figures fg ON fg.id = u.id
      LEFT JOIN rm.mi_last_visits lv ON lv.tenant_id = ${tenantId} AND lv.medical_institution_id = u.id
     WHERE ${sql.join(parts, sql` AND `)}
     ORDER BY abs(${count} - ${comparison}) DESC, lv.last_visit_date ASC NULLS FIRST, m.kana, m.id`;
  // JIT compiling this statement (~100 ms at 20,000 institutions) costs more than running it.
  const { rows } = await db.transaction().execute(async (trx) => {
    await sql`SET LOCAL jit = off`.execute(trx);
    return query.execute(trx);
  });
  return rows;
}

/** Whether a condition names a tag or area deleted since (the query side's `has_invalid`). */
async function conditionInvalid(db: Kysely<unknown>, tenantId: string, filters: AlertFilters) {
  const { rows } = await sql<{ invalid: boolean }>`
    SELECT ${alertConditionInvalid('c')} AS invalid
      FROM (SELECT ${tenantId}::uuid AS tenant_id, ${JSON.stringify(filters)}::jsonb AS filters) c`.execute(db);
  return rows[0]?.invalid ?? false;
}

const facilityTypeNames = new Map(facilityTypes.map((t) => [String(t.id), t.name]));
const departmentNames = new Map(departments.map((d) => [String(d.id).padStart(2, '0'), d.name]));

/** The condition's sentence, with the names of its tags, area, facility types and departments. */
async function summaryOf(db: Kysely<unknown>, tenantId: string, c: EvaluatedCondition): Promise<string> {
  const f = c.filters;
  const [tags, area] = await Promise.all([
    f.tag_ids.length === 0
      ? Promise.resolve([])
      : sql<{
          name: string;
        }>`SELECT name FROM rm.tags WHERE tenant_id = ${tenantId} AND id = ANY(${sql.val(f.tag_ids)}::uuid[])
          ORDER BY name`
          .execute(db)
          .then((r) => r.rows.map((x) => x.name)),
    f.area === null
      ? Promise.resolve(null)
      : sql<{ name: string }>`SELECT la.area ->> 'name' AS name FROM rm.medical_institution_labels l
          CROSS JOIN LATERAL jsonb_array_elements(l.areas) AS la(area)
          WHERE l.tenant_id = ${tenantId} AND l.component_type = 'area' AND la.area ->> 'id' = ${f.area} LIMIT 1`
          .execute(db)
          .then((r) => r.rows[0]?.name ?? null),
  ]);
  return alertConditionSummary(c.triggers, f, {
    tags,
    area,
    facilityTypes: f.facility_type_ids.flatMap((id) => facilityTypeNames.get(String(Number(id))) ?? []),
    departments: f.department_ids.flatMap((id) => departmentNames.get(id.padStart(2, '0')) ?? []),
  });
}

const migrations = {
  '0001_evaluations': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE SCHEMA IF NOT EXISTS alert_evaluation`.execute(db);
      // Which condition was evaluated for which month: the month-turn loop evaluates what is missing,
      // including evaluations that matched nothing (no alert stream says so).
      await sql`
        CREATE TABLE alert_evaluation.evaluations (
          tenant_id uuid NOT NULL,
          condition_id uuid NOT NULL,
          month date NOT NULL,
          target_count int NOT NULL,
          evaluated_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (condition_id, month)
        )`.execute(db);
    },
  },
};

export const migrateAlertEvaluations = (db: Database) => migrateModuleOnce(db, 'alert_evaluation', migrations);

const eventIdNamespace = '9b2e4d6f8a1c4e3b5d7f9a2c4e6b8d0f';

/** Whether a condition reads referral figures: any referral trigger, or a referral count or average filter. */
function readsReferralFigures(condition: Pick<EvaluatedCondition, 'triggers' | 'filters'>): boolean {
  const { triggers: t, filters: f } = condition;
  return (
    t.referral_change_count !== null ||
    t.referral_change_rate !== null ||
    t.referral_count !== null ||
    t.referral_average !== null ||
    f.referral_count !== null ||
    f.referral_average !== null
  );
}

/**
 * Whether the tenant's referral data covers the whole of `month`. Until it does the month's figures are
 * incomplete (at the turn of the month they are all 0, and every "decrease" would match). It does when
 * - a referral dated in a later month is in the rollups (hand entries, or an export "up to yesterday"
 *   uploaded some days into the next month), or
 * - a referral upload made after the month ended (Japan time) is in, and the data reaches the month's
 *   last week: the common monthly routine exports the list up to the month's last day and uploads it in
 *   the first days of the next month, so no referral of a later month exists until the next upload, when
 *   the evaluated month has moved on. The last week, not the last day: the last days of a month are often
 *   a weekend or the year-end holidays without referrals. An upload being withdrawn counts for nothing.
 */
async function referralDataPast(db: Kysely<unknown>, tenantId: string, month: string): Promise<boolean> {
  const { rows } = await sql<{ past: boolean }>`
    SELECT EXISTS (SELECT 1 FROM rm.referral_institution_rollups
                    WHERE tenant_id = ${tenantId}::uuid AND span = 'month' AND period_start > ${month}::date
                      AND referral_count > 0)
        OR (EXISTS (SELECT 1 FROM rm.referral_data_imports
                     WHERE tenant_id = ${tenantId}::uuid AND import_type = 'referral' AND status = 'completed'
                       AND withdrawal_requested_at IS NULL
                       AND (created_at AT TIME ZONE 'Asia/Tokyo')::date >= (${month}::date + interval '1 month')::date)
            AND EXISTS (SELECT 1 FROM rm.referrals
                         WHERE tenant_id = ${tenantId}::uuid
                           AND referral_date >= (${month}::date + interval '1 month' - interval '7 days')::date
                           AND referral_date < (${month}::date + interval '1 month')::date)) AS past`.execute(db);
  return rows[0]?.past ?? false;
}

export type EvaluationOutcome =
  | { kind: 'invalid' }
  /** Reads referral figures, and the tenant's data does not reach past the month yet: not evaluated. */
  | { kind: 'waiting'; month: string }
  | { kind: 'evaluated'; alertId: string; targetCount: number; appended: boolean };

/**
 * Evaluates one condition for one month and records it (a condition reading referral figures only once
 * the tenant's referral data reaches past the month, `referralDataPast`): the alert's stream gets `AlertRaised` (first
 * match), `AlertUpdated` (other figures) or nothing (same figures, archived, or nothing matched and no
 * alert yet); the evaluation is noted for the month-turn loop. The append expects the revision read, and
 * its event id derives from that revision and the evaluation, so a repeat appends nothing twice.
 */
export async function evaluateCondition(
  db: Database,
  store: EventStore,
  input: {
    tenantId: string;
    condition: EvaluatedCondition;
    now: Date;
    /** Overrides the evaluated month (default the last complete month at `now`). */
    month?: string;
    metadata?: Partial<EventMetadata>;
  },
): Promise<EvaluationOutcome> {
  await migrateAlertEvaluations(db);
  const { tenantId, condition, now } = input;
  const kysely = db.kysely as Kysely<unknown>;
  if (await conditionInvalid(kysely, tenantId, condition.filters)) return { kind: 'invalid' };
  const month = input.month ?? evaluatedMonth(now);
  // Not evaluated, nor recorded as evaluated, before the month's referral data is in: the month-turn
  // loop and the next completed import try again.
  if (readsReferralFigures(condition) && !(await referralDataPast(kysely, tenantId, month)))
    return { kind: 'waiting', month };
  const evaluatedOn = jstDay(now);
  const matched = await matchInstitutions(kysely, tenantId, condition, month, evaluatedOn);
  const alertId = alertIdOf(condition.id, month);
  const stream = streamId(alertAggregate, alertId);
  const stored = await readStreamOrEmpty(store, stream, tenantId);
  const state = stored.map((e) => parseAlertEvent(e)).reduce(evolveAlert, initialAlertState());
  let appended = false;
  if (matched.length > 0 || state.status !== 'absent') {
    const evaluation: AlertEvaluated = {
      alert_id: alertId,
      condition_id: condition.id,
      name: condition.name,
      condition_summary: await summaryOf(kysely, tenantId, condition),
      condition_parameters: { triggers: condition.triggers, filters: condition.filters },
      alert_date: month,
      evaluated_on: evaluatedOn,
      target_count: matched.length,
      institutions: {
        medical_institution_ids: matched.map((m) => m.id),
        referral_counts: matched.map((m) => m.referral_count),
        comparison_referral_counts: matched.map((m) => m.comparison_referral_count),
        last_visit_dates: matched.map((m) => m.last_visit_date),
      },
    };
    const events = evaluationEvents(state, evaluation);
    if (events.length > 0) {
      const revision = stored.at(-1)?.revision ?? -1;
      const { evaluated_on: _on, ...content } = evaluation;
      await store.append(
        stream,
        events.map((e) => ({
          id: uuidV5(eventIdNamespace, `${alertId}\u0000${revision}\u0000${stableJson(content)}`),
          type: e.type,
          data: e.data,
          metadata: {
            tenant_id: tenantId,
            account_id: null,
            correlation_id: input.metadata?.correlation_id ?? alertId,
            causation_id: input.metadata?.causation_id ?? null,
            schema_version: 1,
          },
        })),
        { expectedRevision: revision < 0 ? 'no_stream' : revision },
      );
      appended = true;
    }
  }
  await sql`
    INSERT INTO alert_evaluation.evaluations (tenant_id, condition_id, month, target_count)
    VALUES (${tenantId}, ${condition.id}, ${month}::date, ${matched.length})
    ON CONFLICT (condition_id, month) DO UPDATE SET target_count = excluded.target_count, evaluated_at = now()`.execute(
    kysely,
  );
  return { kind: 'evaluated', alertId, targetCount: matched.length, appended };
}
