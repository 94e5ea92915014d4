import { z } from 'zod';
import { AlertConditionType, StoredAlertFilters, StoredAlertTriggers } from '@renkei/contracts';
import { eventParser } from '../event-union.ts';
import { uuidV5 } from '../uuid-v5.ts';

/**
 * Alert conditions (アラート条件) of a tenant: stream `alert_condition-<uuid>`. Alerts (アラート): stream
 * `alert-<uuid>`, one per condition and evaluated month (`alertIdOf`), written by the worker's
 * evaluation and archived by the users.
 */
export const alertConditionAggregate = 'alert_condition';
export const alertAggregate = 'alert';

const uuid = z.string().uuid();
const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

export const AlertConditionCreated = z.object({
  condition_id: uuid,
  name: z.string(),
  type: AlertConditionType,
  triggers: StoredAlertTriggers,
  filters: StoredAlertFilters,
});
export type AlertConditionCreated = z.infer<typeof AlertConditionCreated>;

export const AlertConditionDeleted = z.object({ condition_id: uuid });
export type AlertConditionDeleted = z.infer<typeof AlertConditionDeleted>;

export const alertConditionEventSchemas = { AlertConditionCreated, AlertConditionDeleted } as const;

/** A stored event of an alert-condition stream as its typed union; anything else throws. */
export const parseAlertConditionEvent = eventParser(alertConditionAggregate, alertConditionEventSchemas);

/**
 * The matched institutions with their figures at the evaluation, column by column (a large alert is
 * thousands of rows: one array per field keeps the event a third of the size of one object per row).
 * Names and addresses are not copied: they are the master's and are read with the alert.
 */
export const AlertInstitutionColumns = z
  .object({
    medical_institution_ids: z.array(uuid),
    referral_counts: z.array(z.number().int()),
    comparison_referral_counts: z.array(z.number().int()),
    last_visit_dates: z.array(isoDate.nullable()),
  })
  .refine(
    (c) =>
      [c.referral_counts, c.comparison_referral_counts, c.last_visit_dates].every(
        (column) => column.length === c.medical_institution_ids.length,
      ),
    { message: 'columns of different lengths' },
  );
export type AlertInstitutionColumns = z.infer<typeof AlertInstitutionColumns>;

/** One evaluation of a condition for a month: what `AlertRaised` (the first) and `AlertUpdated` carry. */
export const AlertEvaluated = z.object({
  alert_id: uuid,
  condition_id: uuid,
  /** The condition's name at the evaluation. */
  name: z.string(),
  condition_summary: z.string(),
  condition_parameters: z.object({ triggers: StoredAlertTriggers, filters: StoredAlertFilters }),
  /** The first day of the evaluated month. */
  alert_date: isoDate,
  /** The day (Japan time) visits were counted up to. */
  evaluated_on: isoDate,
  target_count: z.number().int().min(0),
  institutions: AlertInstitutionColumns,
});
export type AlertEvaluated = z.infer<typeof AlertEvaluated>;

export const AlertArchived = z.object({ alert_id: uuid });
export type AlertArchived = z.infer<typeof AlertArchived>;

export const alertEventSchemas = {
  AlertRaised: AlertEvaluated,
  /** A later evaluation of the same month (late referral data) with other figures. */
  AlertUpdated: AlertEvaluated,
  AlertArchived,
} as const;

/** A stored event of an alert stream as its typed union; anything else throws. */
export const parseAlertEvent = eventParser(alertAggregate, alertEventSchemas);

const alertIdNamespace = '6f1d2c8e4b7a4e0f9a3c5d7e9b1f3a5c';

/** An alert's id: one per condition and evaluated month, so evaluating again never makes a second. */
export const alertIdOf = (conditionId: string, month: string): string =>
  uuidV5(alertIdNamespace, `${conditionId}\u0000${month}`);
