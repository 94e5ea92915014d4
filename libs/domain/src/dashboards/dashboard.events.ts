import { z } from 'zod';
import { DashboardReportType } from '@renkei/contracts';
import { eventParser } from '../event-union.ts';

/**
 * Dashboards (ダッシュボード) of a tenant: stream `dashboard-<uuid>`, the stream revision is the
 * dashboard's `version`. Each event carries the whole dashboard as the user saved it.
 */
export const dashboardAggregate = 'dashboard';

const uuid = z.string().uuid();

export const DashboardFields = z.object({
  dashboard_id: uuid,
  name: z.string(),
  filter_department: uuid.nullable(),
  medical_institution_label_id: uuid.nullable(),
  contents: z.array(z.object({ report_type: DashboardReportType, report_id: uuid })),
});
export type DashboardFields = z.infer<typeof DashboardFields>;

export const DashboardCreated = DashboardFields.extend({
  /** The creator's name at the time (the read side prefers the account's current name). */
  created_by_name: z.string().nullable().default(null),
});
export type DashboardCreated = z.infer<typeof DashboardCreated>;

export const DashboardDeleted = z.object({ dashboard_id: uuid });
export type DashboardDeleted = z.infer<typeof DashboardDeleted>;

export const dashboardEventSchemas = {
  DashboardCreated,
  DashboardUpdated: DashboardFields,
  DashboardDeleted,
} as const;

export type DashboardEvent =
  | { type: 'DashboardCreated'; data: DashboardCreated }
  | { type: 'DashboardUpdated'; data: DashboardFields }
  | { type: 'DashboardDeleted'; data: DashboardDeleted };

/** A stored event of a dashboard stream as its typed union; anything else throws. */
export const parseDashboardEvent = eventParser(dashboardAggregate, dashboardEventSchemas);
