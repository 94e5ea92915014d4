import {
  businessDateRange,
  labelFilterFieldsByType,
  type CommunicationLabel,
  type CommunicationType,
  type LabelComponentType,
} from '@renkei/contracts';
import {
  enumParam,
  intParam,
  isCalendarDay,
  isRecord,
  isUuid,
  listParam,
  trimmedString,
  type SearchInput,
} from '../../app/search-params.ts';
import type { CommunicationsParams } from './components/CommunicationsPage.tsx';

const types: readonly CommunicationType[] = [
  'visit',
  'new_visit',
  'phone',
  'email',
  'postal_item',
  'event_attendance',
  'referral_acceptance',
  'refused_referral',
  'other',
];
// A real calendar day: 2026-02-30 would be a 422, not a search. One outside the dates the contract takes
// stays in the URL (a year being typed passes through 0002-04-01) but is not searched by (inSearchRange).
const realDay = (v: unknown) => (isCalendarDay(v) ? v : undefined);
const inSearchRange = (d: string | undefined) =>
  d === undefined || (d >= businessDateRange.from && d <= businessDateRange.to);
const time = (v: unknown) => (typeof v === 'string' && /^([01]\d|2[0-3]):[0-5]\d$/.test(v) ? v : undefined);
const int32 = (v: unknown) =>
  typeof v === 'number' && Number.isInteger(v) && v >= -2147483648 && v <= 2147483647 ? v : undefined;
const uuid = (v: unknown) => (isUuid(v) ? v : undefined);

/** A condition on one communication label, as the URL keeps it (the contract's CommunicationLabelFilter). */
export interface LabelCondition {
  label_id: string;
  text?: string;
  integer_min?: number;
  integer_max?: number;
  date_from?: string;
  date_to?: string;
  time_from?: string;
  time_to?: string;
  selection_ids?: string[];
  own_department_ids?: string[];
  is_empty?: boolean;
}

type ValueField = Exclude<keyof LabelCondition, 'label_id' | 'is_empty'>;

/** The condition fields a label's component type offers (the query service refuses the others). */
const conditionFields: Record<LabelComponentType, readonly ValueField[]> = {
  ...labelFilterFieldsByType,
  text: ['text'],
  textarea: ['text'],
  area: [],
};
const allFields = ['text', ...new Set(Object.values(conditionFields).flat())] as ValueField[];
// Before ranges existed an integer, date or time was searched as text, and the API still takes that.
const textAlsoFits: readonly LabelComponentType[] = ['text', 'textarea', 'integer', 'date', 'time'];

const readers: Record<ValueField, (v: unknown) => unknown> = {
  text: (v) => trimmedString(v, 1, 100),
  integer_min: int32,
  integer_max: int32,
  date_from: realDay,
  date_to: realDay,
  time_from: time,
  time_to: time,
  selection_ids: (v) => listParam(v, uuid, 100),
  own_department_ids: (v) => listParam(v, uuid, 100),
};

/**
 * One label condition of the URL, or undefined when anything in it is malformed, a range is reversed or
 * it mixes two component types' fields: the API would refuse it (422) and the page would not open.
 */
function labelCondition(v: unknown): LabelCondition | undefined {
  if (!isRecord(v) || !isUuid(v.label_id)) return undefined;
  const out: LabelCondition = { label_id: v.label_id };
  for (const key of allFields) {
    if (v[key] === undefined) continue;
    const value = readers[key](v[key]);
    if (value === undefined) return undefined;
    (out as unknown as Record<string, unknown>)[key] = value;
  }
  if (v.is_empty === true) out.is_empty = true;
  const reversed = <T extends number | string>(a: T | undefined, b: T | undefined) =>
    a !== undefined && b !== undefined && a > b;
  if (
    reversed(out.integer_min, out.integer_max) ||
    reversed(out.date_from, out.date_to) ||
    reversed(out.time_from, out.time_to)
  )
    return undefined;
  const kinds = new Set(
    Object.values(conditionFields)
      .filter((fields) => fields.some((k) => k !== 'text' && out[k] !== undefined))
      .map((fields) => fields.join()),
  );
  return kinds.size > 1 ? undefined : out;
}

/** The communications search of the URL; each piece falls back alone (an old link still opens). */
export function communicationsSearch(search: SearchInput): CommunicationsParams {
  const from = realDay(search.from);
  const to = realDay(search.to);
  const list = listParam(search.types, (v) => enumParam(v, types, undefined), types.length);
  const keyword = trimmedString(search.keyword, 1, 100);
  const institutions = listParam(search.institution_ids, uuid, 20);
  const tags = listParam(search.tag_ids, uuid, 100);
  const doctor = search.doctor_attended === true || search.doctor_attended === 'true' ? true : undefined;
  const noDoctor = search.doctor_attended === false || search.doctor_attended === 'false' ? false : undefined;
  const labels = listParam(search.labels, labelCondition, 20);
  return {
    page: intParam(search.page, 1, Number.MAX_SAFE_INTEGER, 1),
    sort: enumParam(search.sort, ['asc', 'desc'], 'desc'),
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
    ...(list ? { types: list } : {}),
    ...(isUuid(search.user_id) ? { user_id: search.user_id } : {}),
    ...(keyword ? { keyword } : {}),
    ...(institutions ? { institution_ids: institutions } : {}),
    ...(tags ? { tag_ids: tags } : {}),
    ...((doctor ?? noDoctor) !== undefined ? { doctor_attended: doctor ?? noDoctor } : {}),
    ...(labels ? { labels } : {}),
  };
}

/** Whether the period's end comes before its start (the search leaves such a period out; the page says so). */
export const isReversedPeriod = (params: Pick<CommunicationsParams, 'from' | 'to'>): boolean =>
  Boolean(params.from && params.to && params.from > params.to);

/**
 * The period the search asks: either end alone is an open-ended period (the contract wants both, so the
 * open end is the first or last date it accepts); none when neither end is set or the two are reversed.
 */
export function periodOf(params: Pick<CommunicationsParams, 'from' | 'to'>): { from: string; to: string } | undefined {
  // An end the search cannot take (a year still being typed) is as if not set.
  const from = inSearchRange(params.from) ? params.from : undefined;
  const to = inSearchRange(params.to) ? params.to : undefined;
  if ((!from && !to) || isReversedPeriod({ from, to })) return undefined;
  return { from: from ?? businessDateRange.from, to: to ?? businessDateRange.to };
}

/** Whether a condition asks anything (a label just added, with no value yet, does not). */
const isActiveCondition = (c: LabelCondition) =>
  c.is_empty === true || allFields.some((k) => c[k] !== undefined && !(Array.isArray(c[k]) && c[k].length === 0));

/**
 * The conditions the search sends: the active ones, and once the labels are known only those the label
 * can meet (a label deleted since the link was made, or a field of another component type, is left out
 * instead of answering nothing or a 422).
 */
export function effectiveConditions(
  conditions: readonly LabelCondition[] | undefined,
  labels: readonly CommunicationLabel[] | undefined,
): LabelCondition[] {
  return (conditions ?? []).filter((c) => {
    if (!isActiveCondition(c)) return false;
    if (!inSearchRange(c.date_from) || !inSearchRange(c.date_to)) return false;
    if (!labels) return true;
    const label = labels.find((l) => l.id === c.label_id);
    if (!label) return false;
    const fields: readonly ValueField[] = [
      ...(textAlsoFits.includes(label.component_type) ? (['text'] as const) : []),
      ...conditionFields[label.component_type],
    ];
    return c.is_empty === true || allFields.every((k) => c[k] === undefined || fields.includes(k));
  });
}

/** The labels a condition can be added for: those of the chosen types (all, when none is chosen). */
export function labelsForTypes(
  labels: readonly CommunicationLabel[],
  chosen: readonly CommunicationType[] | undefined,
): CommunicationLabel[] {
  return labels.filter(
    (l) => l.component_type !== 'area' && (!chosen?.length || chosen.includes(l.communication_type)),
  );
}

/** The number of further filters asked (each label condition counts alone): the 詳細条件 panel's. */
export function furtherFilterCount(params: CommunicationsParams, labels?: readonly CommunicationLabel[]): number {
  return (
    [params.institution_ids, params.tag_ids, params.doctor_attended].filter((v) => v !== undefined).length +
    effectiveConditions(params.labels, labels).length
  );
}

/** The number of filters asked, for the 絞り込み button and 「条件をクリア」. */
export function activeFilterCount(params: CommunicationsParams, labels?: readonly CommunicationLabel[]): number {
  return (
    [params.from || params.to ? true : undefined, params.types, params.user_id, params.keyword].filter(
      (v) => v !== undefined,
    ).length + furtherFilterCount(params, labels)
  );
}

/** Every filter off (the order kept), from the first page: 「条件をクリア」. */
export const clearedFilters = (): Partial<CommunicationsParams> => ({
  page: 1,
  from: undefined,
  to: undefined,
  types: undefined,
  user_id: undefined,
  keyword: undefined,
  institution_ids: undefined,
  tag_ids: undefined,
  doctor_attended: undefined,
  labels: undefined,
});
