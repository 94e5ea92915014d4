import { z } from 'zod';
import { endpoint } from '../core/endpoint.ts';
import { Id, IdParams, IsoDateTime, NoContent, PageQuery, paged } from '../core/zod-helpers.ts';
import { MasterCode, PrefectureCode } from '../core/refs.ts';

/** What an alert watches: referral figures or visits. */
export const AlertConditionType = z.enum(['referral', 'communication']);
export type AlertConditionType = z.infer<typeof AlertConditionType>;

export const ChangeDirection = z.enum(['increase', 'decrease']);
export const Comparison = z.enum(['gte', 'lte']);
/**
 * Counts and averages are compared with the rollups' figures in SQL: whole numbers for counts, and a
 * bound for both, so no parameter can fall outside what the statement's types hold.
 */
export const alertCountMax = 100_000;
export const alertAverageMax = 100_000;
const count = z
  .number()
  .int('整数を入力してください')
  .min(0, '0以上の整数を入力してください')
  .max(alertCountMax, `${alertCountMax.toLocaleString('en-US')}以下で入力してください`);
const average = z
  .number()
  .min(0, '0以上で入力してください')
  .max(alertAverageMax, `${alertAverageMax.toLocaleString('en-US')}以下で入力してください`);

/** Spec §3 triggers; every trigger given must hold for an institution to be alerted. */
const triggersOf = (count: z.ZodNumber, average: z.ZodNumber) =>
  z.object({
    /** Referrals of the last month against the month before, by count. */
    referral_change_count: z
      .object({ direction: ChangeDirection, count: count.min(1) })
      .nullable()
      .default(null),
    /** The same change in percent. */
    referral_change_rate: z
      .object({ direction: ChangeDirection, rate: z.number().min(0).max(1000, '1000%以下で入力してください') })
      .nullable()
      .default(null),
    referral_count: z.object({ comparison: Comparison, count }).nullable().default(null),
    /** Monthly average over `months`. */
    referral_average: z
      .object({ comparison: Comparison, average, months: z.number().int().min(1).max(24) })
      .nullable()
      .default(null),
    /** No visit for this many days. */
    communication_visit: z
      .object({ days_without_visit: z.number().int().min(1).max(730) })
      .nullable()
      .default(null),
  });
export const AlertTriggers = triggersOf(count, average);
/**
 * The triggers as stored by conditions created before counts were bounded (decimals, any size): events
 * and read-model rows keep parsing; the evaluation casts every parameter, so they cannot break it.
 */
export const StoredAlertTriggers = triggersOf(z.number().min(0), z.number().min(0));
export type AlertTriggers = z.infer<typeof AlertTriggers>;

const rangeOf = (value: z.ZodNumber) =>
  z
    .object({ min: value.nullable().default(null), max: value.nullable().default(null) })
    .refine((r) => r.min === null || r.max === null || r.min <= r.max, {
      message: '下限は上限以下で入力してください',
      path: ['min'],
    });
/** Spec §3 filters: which institutions are watched. */
const filtersOf = (count: z.ZodNumber, average: z.ZodNumber) =>
  z.object({
    prefecture: PrefectureCode.nullable().default(null),
    /** An area of an institution label of type area. */
    area: Id.nullable().default(null),
    facility_type_ids: z.array(MasterCode).max(100).default([]),
    department_ids: z.array(MasterCode).max(200).default([]),
    tag_ids: z.array(Id).max(100).default([]),
    referral_count: rangeOf(count).nullable().default(null),
    referral_average: rangeOf(average).nullable().default(null),
    communication_visit: z.enum(['visited', 'not_visited', 'all']).default('all'),
  });
export const AlertFilters = filtersOf(count, average);
/** The filters as stored before counts were bounded (see `StoredAlertTriggers`). */
export const StoredAlertFilters = filtersOf(z.number().min(0), z.number().min(0));
export type AlertFilters = z.infer<typeof AlertFilters>;

export const AlertCondition = z.object({
  id: Id,
  name: z.string(),
  type: AlertConditionType,
  triggers: StoredAlertTriggers,
  filters: StoredAlertFilters,
  /** A tag, area or label it refers to was deleted; it no longer runs until fixed. */
  has_invalid: z.boolean(),
  created_date: IsoDateTime,
});
export type AlertCondition = z.infer<typeof AlertCondition>;

export const AlertConditionInput = z
  .object({
    name: z
      .string()
      .trim()
      .min(1, 'アラート名を入力してください')
      .max(100, 'アラート名は100文字以内で入力してください'),
    type: AlertConditionType,
    triggers: AlertTriggers,
    filters: AlertFilters.default(AlertFilters.parse({})),
  })
  .refine((v) => Object.values(v.triggers).some((t) => t !== null), {
    message: '条件を1つ以上設定してください',
    path: ['triggers'],
  });
export type AlertConditionInput = z.infer<typeof AlertConditionInput>;

export const Alert = z.object({
  id: Id,
  name: z.string(),
  condition_summary: z.string(),
  condition_parameters: z.object({ triggers: StoredAlertTriggers, filters: StoredAlertFilters }),
  alert_date: z.iso.date(),
  target_count: z.number().int(),
  is_archived: z.boolean(),
});
export type Alert = z.infer<typeof Alert>;

export const AlertMedicalInstitution = z.object({
  id: Id,
  name: z.string(),
  address: z.string(),
  referral_count: z.number().int().nullable(),
  comparison_referral_count: z.number().int().nullable(),
  rate_of_referral_change: z.number().nullable(),
  last_visit_date: z.iso.date().nullable(),
});
export type AlertMedicalInstitution = z.infer<typeof AlertMedicalInstitution>;

export const AlertListQuery = PageQuery.extend({ status: z.enum(['open', 'archived']).default('open') });
export const BulkArchiveInput = z.object({
  alert_ids: z.array(Id).min(1, 'アラートを1件以上選択してください').max(1000),
});

const al = { area: 'alerts', feature: 'alerts', served: true } as const;

export const alertEndpoints = {
  listAlerts: endpoint({
    ...al,
    id: 'alerts.list',
    method: 'GET',
    path: '/alerts',
    service: 'query',
    summary: 'アラート一覧',
    query: AlertListQuery,
    response: paged(Alert),
    successStatus: 200,
  }),
  getAlert: endpoint({
    ...al,
    id: 'alerts.get',
    method: 'GET',
    path: '/alerts/{id}',
    service: 'query',
    summary: 'アラート詳細',
    params: IdParams,
    response: Alert,
    successStatus: 200,
  }),
  listAlertMedicalInstitutions: endpoint({
    ...al,
    id: 'alerts.listMedicalInstitutions',
    method: 'GET',
    path: '/alerts/{id}/medical_institutions',
    service: 'query',
    summary: 'アラート対象の医療機関',
    params: IdParams,
    query: PageQuery,
    response: paged(AlertMedicalInstitution),
    successStatus: 200,
  }),
  archiveAlert: endpoint({
    ...al,
    id: 'alerts.archive',
    method: 'POST',
    path: '/alerts/{id}/archive',
    service: 'command',
    summary: 'アラートのアーカイブ',
    params: IdParams,
    response: Alert,
    successStatus: 200,
  }),
  bulkArchiveAlerts: endpoint({
    ...al,
    id: 'alerts.bulkArchive',
    method: 'POST',
    path: '/alerts/bulk_archive',
    service: 'command',
    summary: 'アラートの一括アーカイブ',
    body: BulkArchiveInput,
    response: z.object({ count: z.number().int() }),
    successStatus: 200,
  }),
  listAlertConditions: endpoint({
    ...al,
    id: 'alerts.listConditions',
    method: 'GET',
    path: '/alert_conditions',
    service: 'query',
    summary: 'アラート条件一覧',
    query: PageQuery,
    response: paged(AlertCondition),
    successStatus: 200,
  }),
  createAlertCondition: endpoint({
    ...al,
    id: 'alerts.createCondition',
    method: 'POST',
    path: '/alert_conditions',
    service: 'command',
    summary: 'アラート条件の作成',
    body: AlertConditionInput,
    response: AlertCondition,
    successStatus: 201,
    ownerOnly: true,
  }),
  deleteAlertCondition: endpoint({
    ...al,
    id: 'alerts.deleteCondition',
    // A condition is never edited and carries no version: a delete has nothing to race on.
    versionGuarded: false,
    method: 'DELETE',
    path: '/alert_conditions/{id}',
    service: 'command',
    summary: 'アラート条件の削除',
    params: IdParams,
    response: NoContent,
    successStatus: 204,
    ownerOnly: true,
  }),
};
