import { z } from 'zod';
import { ReportAlertSettings, ReportDefinitionInput, ReportKind } from '@renkei/contracts';
import { eventParser } from '../event-union.ts';

/**
 * Report definitions (レポート定義) of the four report kinds: stream `report_definition-<uuid>`, one per
 * definition, its kind fixed by the created event. `version` is the definition's own version (its
 * If-Match): it moves with the users' writes only, so an alert the worker raises never makes an open
 * edit stale. Each user write carries the version it leads to, which keeps the projection idempotent.
 */
export const reportDefinitionAggregate = 'report_definition';

const uuid = z.string().uuid();
const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

/** What a definition holds besides its name, as `rm.report_definitions.definition` stores it. */
export const StoredReportDefinition = ReportDefinitionInput.omit({ name: true });
export type StoredReportDefinition = z.infer<typeof StoredReportDefinition>;

export const ReportDefinitionCreated = z.object({
  report_definition_id: uuid,
  kind: ReportKind,
  name: z.string(),
  definition: StoredReportDefinition,
  /** The creator's name at the time (the read side prefers the account's current name). */
  created_by_name: z.string().nullable().default(null),
});
export type ReportDefinitionCreated = z.infer<typeof ReportDefinitionCreated>;

export const ReportDefinitionUpdated = z.object({
  report_definition_id: uuid,
  name: z.string(),
  definition: StoredReportDefinition,
  version: z.number().int().min(1),
});
export type ReportDefinitionUpdated = z.infer<typeof ReportDefinitionUpdated>;

export const ReportDefinitionDeleted = z.object({ report_definition_id: uuid });
export type ReportDefinitionDeleted = z.infer<typeof ReportDefinitionDeleted>;

/** Institution reports only: when the report alerts and whom it notifies. */
export const ReportAlertSettingsChanged = z.object({
  report_definition_id: uuid,
  alert_settings: ReportAlertSettings,
  version: z.number().int().min(1),
});
export type ReportAlertSettingsChanged = z.infer<typeof ReportAlertSettingsChanged>;

/** The worker found a row matching the alert conditions on `alert_date` (Japan time); once a day. */
export const ReportAlertRaised = z.object({ report_definition_id: uuid, alert_date: isoDate });
export type ReportAlertRaised = z.infer<typeof ReportAlertRaised>;

export const reportDefinitionEventSchemas = {
  ReportDefinitionCreated,
  ReportDefinitionUpdated,
  ReportDefinitionDeleted,
  ReportAlertSettingsChanged,
  ReportAlertRaised,
} as const;

export type ReportDefinitionEvent =
  | { type: 'ReportDefinitionCreated'; data: ReportDefinitionCreated }
  | { type: 'ReportDefinitionUpdated'; data: ReportDefinitionUpdated }
  | { type: 'ReportDefinitionDeleted'; data: ReportDefinitionDeleted }
  | { type: 'ReportAlertSettingsChanged'; data: ReportAlertSettingsChanged }
  | { type: 'ReportAlertRaised'; data: ReportAlertRaised };

/** A stored event of a report-definition stream as its typed union; anything else throws. */
export const parseReportDefinitionEvent = eventParser(reportDefinitionAggregate, reportDefinitionEventSchemas);
