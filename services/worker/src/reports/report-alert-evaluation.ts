import { sql, type Kysely } from 'kysely';
import type { ReportAlertSettings, ReportDefinitionInput } from '@renkei/contracts';
import { migrateModuleOnce, type Database } from '@renkei/db';
import {
  parseReportDefinitionEvent,
  reportDefinitionAggregate,
  uuidV5,
  type StoredReportDefinition,
} from '@renkei/domain';
import {
  readStreamOrEmpty,
  streamId,
  WrongExpectedRevisionError,
  type EventMetadata,
  type EventStore,
} from '@renkei/event-store';
import { reportSources, runReport, type ReadModels } from '@renkei/read-models';
import { jstDay } from '../japan-time.ts';

/** The day in Japan of an instant (YYYY-MM-DD). */

/** The first day of the month in Japan of an instant (YYYY-MM-01). */
export const jstMonth = (at: Date): string => `${jstDay(at).slice(0, 7)}-01`;

const migrations = {
  '0001_runs': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE SCHEMA IF NOT EXISTS report_alert`.execute(db);
      // Which definition (at which version of its settings) was evaluated in which month: the month-turn
      // loop evaluates what is missing, runs that matched nothing included (no event says so).
      await sql`
        CREATE TABLE report_alert.runs (
          tenant_id uuid NOT NULL,
          definition_id uuid NOT NULL,
          month date NOT NULL,
          version int NOT NULL,
          matched boolean NOT NULL,
          evaluated_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (definition_id, month, version)
        )`.execute(db);
    },
  },
};

export const migrateReportAlertRuns = (db: Database) => migrateModuleOnce(db, 'report_alert', migrations);

/** An institution report whose alert is on, as `rm.report_definitions` holds it. */
export interface AlertedDefinition {
  tenant_id: string;
  id: string;
  name: string;
  definition: StoredReportDefinition;
  alert_settings: ReportAlertSettings;
  alert_date: string | null;
  version: number;
  created_at: string;
}

/** Whether the definitions read model exists yet (the worker creates it with the other projections). */
export async function reportDefinitionsReady(db: Kysely<unknown>): Promise<boolean> {
  const { rows } = await sql<{ present: boolean }>`
    SELECT to_regclass('rm.report_definitions') IS NOT NULL AS present`.execute(db);
  return rows[0]?.present ?? false;
}

/**
 * Institution reports with their alert on: of one tenant (after an import), or of every tenant not yet
 * evaluated in `missingMonth` at their current version (the month-turn loop), a page at a time after
 * `after` (created_at, id).
 */
export async function alertedDefinitions(
  db: Kysely<unknown>,
  which:
    { tenantId: string } | { missingMonth: string; after: { created_at: string; id: string } | null; limit: number },
): Promise<AlertedDefinition[]> {
  const select = sql`
    SELECT d.tenant_id, d.id, d.name, d.definition, d.alert_settings, to_char(d.alert_date, 'YYYY-MM-DD') AS alert_date,
           d.version, d.created_at::text AS created_at
      FROM rm.report_definitions d
     WHERE d.kind = 'medical_institution_reports' AND (d.alert_settings->>'enabled')::boolean`;
  const { rows } =
    'tenantId' in which
      ? await sql<AlertedDefinition>`${select} AND d.tenant_id = ${which.tenantId} ORDER BY d.created_at, d.id`.execute(
          db,
        )
      : await sql<AlertedDefinition>`${select}
           AND NOT EXISTS (SELECT 1 FROM report_alert.runs r
                            WHERE r.definition_id = d.id AND r.month = ${which.missingMonth}::date AND r.version = d.version)
           ${which.after ? sql`AND (d.created_at, d.id) > (${which.after.created_at}::timestamptz, ${which.after.id}::uuid)` : sql``}
         ORDER BY d.created_at, d.id
         LIMIT ${which.limit}`.execute(db);
  return rows;
}

/** The report an alert runs: the definition's filters AND the alert's conditions. */
function alertReport(d: Pick<AlertedDefinition, 'name' | 'definition' | 'alert_settings'>): ReportDefinitionInput {
  return {
    name: d.name,
    ...d.definition,
    filter_conditions: [...d.definition.filter_conditions, ...d.alert_settings.conditions],
  };
}

const eventIdNamespace = '4c1e7a92b3d54f6e8a0b2c4d6e8f0a1b';

export type ReportAlertOutcome = 'raised' | 'already_raised' | 'no_match' | 'gone';

/**
 * Runs one definition's alert for the day (JST) of `now`: when any institution of the report matches
 * its filters and the alert's conditions, `ReportAlertRaised` with the day is appended to the
 * definition's stream, once per day (the stream says whether it already fired that day, and the event id
 * derives from definition and day). The run is recorded for the month-turn loop.
 */
export async function evaluateReportAlert(
  db: Database,
  store: EventStore,
  input: {
    definition: AlertedDefinition;
    now: Date;
    metadata?: Pick<EventMetadata, 'correlation_id' | 'causation_id'>;
  },
): Promise<ReportAlertOutcome> {
  await migrateReportAlertRuns(db);
  const d = input.definition;
  const today = jstDay(input.now);
  const record = (matched: boolean) =>
    sql`INSERT INTO report_alert.runs (tenant_id, definition_id, month, version, matched)
        VALUES (${d.tenant_id}, ${d.id}, ${jstMonth(input.now)}::date, ${d.version}, ${matched})
        ON CONFLICT (definition_id, month, version) DO UPDATE SET matched = excluded.matched, evaluated_at = now()`.execute(
      db.kysely,
    );
  if (d.alert_date !== null && d.alert_date >= today) {
    await record(true);
    return 'already_raised';
  }
  const source = reportSources.medical_institution_reports;
  if (!source) throw new Error('report alerts: no source for institution reports');
  const result = await runReport(source, db.typed<ReadModels>(), d.tenant_id, alertReport(d), {
    page: 1,
    perPage: 1,
    saved: true,
  });
  const matched = result.meta.total_count > 0;
  const outcome = matched ? await raise(store, d, today, input.metadata) : 'no_match';
  await record(matched);
  return outcome;
}

/** Appends the day's alert unless the definition is gone or fired that day already (a lost race: read again). */
async function raise(
  store: EventStore,
  d: AlertedDefinition,
  today: string,
  metadata: Pick<EventMetadata, 'correlation_id' | 'causation_id'> | undefined,
): Promise<ReportAlertOutcome> {
  const stream = streamId(reportDefinitionAggregate, d.id);
  for (let attempt = 0; ; attempt++) {
    const stored = await readStreamOrEmpty(store, stream, d.tenant_id);
    let live = false;
    let alertDate: string | null = null;
    for (const event of stored.map(parseReportDefinitionEvent)) {
      if (event.type === 'ReportDefinitionCreated') live = true;
      if (event.type === 'ReportDefinitionDeleted') live = false;
      if (event.type === 'ReportAlertRaised') alertDate = event.data.alert_date;
    }
    if (!live) return 'gone';
    if (alertDate !== null && alertDate >= today) return 'already_raised';
    try {
      await store.append(
        stream,
        [
          {
            id: uuidV5(eventIdNamespace, `${d.id}:${today}`),
            type: 'ReportAlertRaised',
            data: { report_definition_id: d.id, alert_date: today },
            metadata: {
              tenant_id: d.tenant_id,
              account_id: null,
              correlation_id: metadata?.correlation_id ?? uuidV5(eventIdNamespace, `run:${d.id}:${today}`),
              causation_id: metadata?.causation_id ?? null,
              schema_version: 1,
            },
          },
        ],
        { expectedRevision: stored.at(-1)!.revision },
      );
      return 'raised';
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || attempt >= 2) throw error;
    }
  }
}
