import { communicationTypeNames, CommunicationType } from '../labels/label.schemas.ts';
import type { ReportItemDefinition, ReportKind } from './report.schemas.ts';

/**
 * The items each report kind can show, filter, sort and group by: the static part of
 * `GET /{kind}/item_definitions`. A tenant's own labels add `label:<uuid>` items at run time (institution
 * labels to institution reports, communication labels to communication reports); a formula column is a
 * display item whose key starts with `formula:`. Both sides read this one list: the command side refuses a
 * definition naming a key that is none of these, the query side runs it.
 */

type Item = Omit<ReportItemDefinition, 'selections' | 'filterable' | 'sortable' | 'aggregation_methods' | 'periodic'> &
  Partial<Pick<ReportItemDefinition, 'selections' | 'filterable' | 'sortable' | 'aggregation_methods' | 'periodic'>>;

const attribute = (
  key: string,
  label: string,
  category: string,
  value_type: ReportItemDefinition['value_type'] = 'string',
  selections: ReportItemDefinition['selections'] = [],
): Item => ({ key, label, category, value_type, selections });

/** A figure per period (summed over the period's buckets); rates are recomputed from their counts, never summed. */
const figure = (key: string, label: string, category: string, value_type: 'integer' | 'rate' = 'integer'): Item => ({
  key,
  label,
  category,
  value_type,
  periodic: true,
  aggregation_methods: value_type === 'rate' ? [] : ['sum', 'average', 'count'],
});

const complete = (item: Item): ReportItemDefinition => ({
  selections: [],
  filterable: true,
  sortable: true,
  aggregation_methods: [],
  periodic: false,
  ...item,
});

export const runningStatusSelections = [
  { value: 'open', label: '運営中' },
  { value: 'closed', label: '廃止' },
  { value: 'suspended', label: '休止' },
  { value: 'unknown', label: '不明' },
];

export const communicationTypeSelections = CommunicationType.options.map((value) => ({
  value,
  label: communicationTypeNames[value],
}));

const REFERRAL = '紹介実績';
const INSTITUTION = '医療機関';
const ACTIVITY = '活動';

/** Referral figures shared by the institution, own-department and area kinds. */
const referralFigures: Item[] = [
  figure('referral_count', '紹介数', REFERRAL),
  figure('first_visit_count', '初診紹介数', REFERRAL),
  figure('hospital_admission_count', '入院数', REFERRAL),
  figure('hospital_admission_rate', '入院率', REFERRAL, 'rate'),
  figure('operation_count', '手術数', REFERRAL),
  figure('operation_rate', '手術率', REFERRAL, 'rate'),
  figure('reverse_referral_count', '逆紹介数', REFERRAL),
];

const institutionAttributes: Item[] = [
  attribute('medical_institution_name', '医療機関名', INSTITUTION),
  attribute('medical_institution_code', '医療機関コード', INSTITUTION),
  attribute('prefecture', '都道府県', INSTITUTION),
  attribute('city', '市区町村', INSTITUTION),
  attribute('facility_type', '施設区分', INSTITUTION),
];

export const staticReportItems: Record<ReportKind, readonly ReportItemDefinition[]> = {
  medical_institution_reports: [
    ...institutionAttributes,
    attribute('address', '住所', INSTITUTION),
    attribute('running_status', '運営状況', INSTITUTION, 'selection', runningStatusSelections),
    attribute('phase', 'フェーズ', INSTITUTION, 'selection'),
    attribute('tags', 'タグ', INSTITUTION, 'selection'),
    attribute('last_visit_date', '最終訪問日', ACTIVITY, 'date'),
    ...referralFigures,
    figure('visit_count', '訪問数', ACTIVITY),
    figure('communication_count', '活動数', ACTIVITY),
  ].map(complete),
  own_department_reports: [
    attribute('own_department_name', '自院診療科', '診療科'),
    ...referralFigures,
    figure('referring_institution_count', '紹介元医療機関数', REFERRAL),
  ].map(complete),
  area_reports: [
    attribute('prefecture', '都道府県', 'エリア'),
    attribute('city', '市区町村', 'エリア'),
    ...referralFigures,
    figure('referring_institution_count', '紹介元医療機関数', REFERRAL),
    figure('visit_count', '訪問数', ACTIVITY),
    attribute('institution_count', '医療機関数', 'エリア', 'integer'),
  ].map(complete),
  communication_reports: [
    attribute('acted_at', '活動日', ACTIVITY, 'date'),
    attribute('communication_type', '活動種別', ACTIVITY, 'selection', communicationTypeSelections),
    attribute('user', '担当者', ACTIVITY, 'selection'),
    attribute('category', 'カテゴリ', ACTIVITY),
    attribute('purpose', '目的', ACTIVITY),
    attribute('doctor_attended', '面談医師', ACTIVITY),
    attribute('story', '内容', ACTIVITY),
    ...institutionAttributes,
    attribute('comment_count', 'コメント数', ACTIVITY, 'integer'),
    attribute('like_count', 'いいね数', ACTIVITY, 'integer'),
    attribute('task_count', 'タスク数', ACTIVITY, 'integer'),
  ].map(complete),
};

/** The prefix of a tenant label's item key (`label:<uuid>`). */
export const labelItemPrefix = 'label:';
/** The prefix of a computed column's key (`formula:<name>`). */
export const formulaItemPrefix = 'formula:';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The label id of a `label:<uuid>` key, else null. */
export function labelIdOfItemKey(key: string): string | null {
  if (!key.startsWith(labelItemPrefix)) return null;
  const id = key.slice(labelItemPrefix.length);
  return uuidPattern.test(id) ? id.toLowerCase() : null;
}

/** Kinds whose rows carry a tenant's labels: institution labels and communication labels. */
export const labelItemKinds: ReadonlySet<ReportKind> = new Set([
  'medical_institution_reports',
  'communication_reports',
]);

/** Whether `key` can name an item of `kind` (a static item, or a label of a kind that has them). */
export function isKnownItemKey(kind: ReportKind, key: string): boolean {
  if (staticReportItems[kind].some((item) => item.key === key)) return true;
  return labelItemKinds.has(kind) && labelIdOfItemKey(key) !== null;
}

export function staticReportItem(kind: ReportKind, key: string): ReportItemDefinition | undefined {
  return staticReportItems[kind].find((item) => item.key === key);
}
