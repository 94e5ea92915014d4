import { sql, type Kysely, type RawBuilder } from 'kysely';
import {
  communicationTypeSelections,
  labelIdOfItemKey,
  labelItemPrefix,
  staticReportItems,
  type ReportItemDefinition,
} from '@renkei/contracts';
import { facilityTypes, prefectures } from '@renkei/institution-master';
import type { LabelSelectionData, LabelValueData } from '@renkei/domain';
import type { ReadModels } from '../../read-models.ts';
import type { ReportSource, ReportSourceRow, ReportValue } from '../engine/report-source.ts';

/** The most communications one report loads: beyond it the run is refused (a 422), never cut short. */
export const maxCommunicationReportRows = 100_000;

/**
 * A communication report's period holds more records than `maxCommunicationReportRows`: the engine and
 * the routes answer it as a 422 with this message (the period is what the user can shorten).
 */
export class TooManyCommunicationsError extends Error {
  readonly count: number;
  constructor(count: number) {
    super('対象の活動が多すぎます。期間を短くしてください');
    this.name = 'TooManyCommunicationsError';
    this.count = count;
  }
}

interface LabelRow {
  id: string;
  name: string;
  component_type: string;
  selections: LabelSelectionData[];
  deleted_selections: LabelSelectionData[];
}

const prefectureName = new Map(prefectures.map((p) => [p.code, p.name]));
const facilityTypeName = new Map(facilityTypes.map((t) => [t.id, t.name]));
const communicationTypeName = new Map<string, string>(communicationTypeSelections.map((s) => [s.value, s.label]));

/** What a label of each component type holds, as a report item's value type. */
const valueTypeOf = (componentType: string): ReportItemDefinition['value_type'] => {
  switch (componentType) {
    case 'integer':
      return 'integer';
    case 'date':
      return 'date';
    case 'select':
    case 'radio':
    case 'checkbox':
      return 'selection';
    default:
      return 'string';
  }
};

/**
 * The attribute columns of a communication row, each read only when its item is asked. Comments, likes
 * and tasks are counted per record by their (tenant, communication) indexes.
 */
const columns: Record<string, RawBuilder<unknown>> = {
  acted_at: sql`to_char(c.acted_date, 'YYYY-MM-DD')`,
  // Not an item of the catalog: the engine asks it to count distinct institutions (「医療機関数」).
  medical_institution_id: sql`c.medical_institution_id`,
  communication_type: sql`c.communication_type`,
  user: sql`(SELECT a.name FROM rm.mi_accounts a WHERE a.tenant_id = c.tenant_id AND a.account_id = c.user_id)`,
  category: sql`c.category`,
  purpose: sql`c.purpose`,
  // 面談医師: the hospital's person in charge of a record that says a doctor was met (the record has no other name of one).
  doctor_attended: sql`CASE WHEN c.is_doctor_attended THEN nullif(c.person_in_charge_hospital, '') END`,
  story: sql`c.story`,
  medical_institution_name: sql`m.name`,
  medical_institution_code: sql`m.code`,
  prefecture: sql`m.prefecture_code::int`,
  city: sql`nullif(m.city, '')`,
  facility_type: sql`m.facility_type_id`,
  comment_count: sql`(SELECT count(*)::int FROM rm.communication_comments x WHERE x.tenant_id = c.tenant_id AND x.communication_id = c.id)`,
  like_count: sql`(SELECT count(*)::int FROM rm.communication_likes x WHERE x.tenant_id = c.tenant_id AND x.communication_id = c.id)`,
  task_count: sql`(SELECT count(*)::int FROM rm.tasks x WHERE x.tenant_id = c.tenant_id AND x.communication_id = c.id)`,
};
const masterColumns = new Set([
  'medical_institution_name',
  'medical_institution_code',
  'prefecture',
  'city',
  'facility_type',
]);

/**
 * コミュニケーションレポート: one row per live communication of the tenant whose acted date (a Japan date) is within
 * the period; the comparison period plays no part (the kind has no periodic items). A selection item's
 * row holds what the screen shows (the type's name 訪問, the staff member's name, a label's choice names
 * joined with 「、」), and its `selections` map the codes a filter may name (the enum value, the account
 * id, the choice id) to those names, as the engine compares them.
 */
export const communicationReportsSource: ReportSource = {
  kind: 'communication_reports',
  answersAnyBucket: true,
  reads: ['communications', 'tasks', 'medical_institution_crm'],

  async items(db, tenantId) {
    const { rows: accounts } = await sql<{ account_id: string; name: string }>`
      SELECT account_id, name FROM rm.mi_accounts WHERE tenant_id = ${tenantId} ORDER BY name, account_id`.execute(db);
    const labels = await labelsOf(db, tenantId, null);
    return [
      ...staticReportItems.communication_reports.map((item) =>
        item.key === 'user'
          ? { ...item, selections: accounts.map((a) => ({ value: a.account_id, label: a.name })) }
          : { ...item },
      ),
      ...labels.map((label): ReportItemDefinition => ({
        key: `${labelItemPrefix}${label.id}`,
        label: label.name,
        category: 'ラベル',
        value_type: valueTypeOf(label.component_type),
        selections: [...label.selections]
          .sort((a, b) => a.order - b.order)
          .map((s) => ({ value: s.id, label: s.label })),
        filterable: true,
        sortable: true,
        aggregation_methods: [],
        periodic: false,
      })),
    ];
  },

  async load(db, request) {
    const { buckets, tenantId, itemKeys } = request;
    if (buckets.length === 0) return [];
    const from = buckets[0]!.from;
    const to = buckets[buckets.length - 1]!.to;

    // The records of the period, from the per-day counts, before any record is read.
    const { rows: counted } = await sql<{ n: number }>`
      SELECT coalesce(sum(record_count), 0)::int AS n FROM rm.communication_day_counts
       WHERE tenant_id = ${tenantId} AND acted_date BETWEEN ${from}::date AND ${to}::date`.execute(db);
    const count = counted[0]?.n ?? 0;
    if (count > maxCommunicationReportRows) throw new TooManyCommunicationsError(count);
    if (count === 0) return [];

    const asked = Object.keys(columns).filter((key) => itemKeys.has(key));
    const labelIds = [...itemKeys].map(labelIdOfItemKey).filter((id): id is string => id !== null);
    const labels = labelIds.length > 0 ? await labelsOf(db, tenantId, labelIds) : [];
    const departments = labels.some((l) => l.component_type === 'own_department')
      ? await ownDepartmentNames(db, tenantId)
      : new Map<string, string>();
    const selected = [
      sql`c.id`,
      ...asked.map((key) => sql`${columns[key]!} AS ${sql.ref(key)}`),
      ...(labels.length > 0 ? [sql`c.label_values`] : []),
    ];
    const { rows } = await sql<Record<string, unknown> & { id: string; label_values?: LabelValueData[] }>`
      SELECT ${sql.join(selected)}
        FROM rm.communications c
        ${asked.some((key) => masterColumns.has(key)) ? sql`LEFT JOIN ref.medical_institutions m ON m.id = c.medical_institution_id` : sql``}
       WHERE c.tenant_id = ${tenantId} AND c.acted_date BETWEEN ${from}::date AND ${to}::date
       -- The communications list's order (newest first): a report without a sort of its own reads like it,
       -- not in the order of the records' random ids.
       ORDER BY c.acted_date DESC, c.created_at DESC, c.id DESC
       LIMIT ${maxCommunicationReportRows + 1}`.execute(db);
    // Records saved between the count and the read may still pass the bound.
    if (rows.length > maxCommunicationReportRows) throw new TooManyCommunicationsError(rows.length);

    return rows.map((r, order): ReportSourceRow => {
      const values: Record<string, ReportValue> = {};
      for (const key of asked) values[key] = (r[key] ?? null) as ReportValue;
      if ('communication_type' in values)
        values.communication_type = communicationTypeName.get(String(values.communication_type)) ?? null;
      if ('prefecture' in values)
        values.prefecture = values.prefecture === null ? null : (prefectureName.get(Number(values.prefecture)) ?? null);
      if ('facility_type' in values)
        values.facility_type =
          values.facility_type === null ? null : (facilityTypeName.get(Number(values.facility_type)) ?? null);
      for (const id of labelIds) values[`${labelItemPrefix}${id}`] = null;
      for (const label of labels) {
        const value = r.label_values?.find((v) => v.label_id === label.id);
        values[`${labelItemPrefix}${label.id}`] = value ? labelText(label, value, departments) : null;
      }
      return { id: r.id, values, figures: {}, comparisonFigures: {}, order };
    });
  },
};

/** The tenant's live communication labels (all of them, or those of `ids`), in display order. */
async function labelsOf(db: Kysely<ReadModels>, tenantId: string, ids: readonly string[] | null): Promise<LabelRow[]> {
  const { rows } = await sql<LabelRow>`
    SELECT id, name, component_type, selections, deleted_selections FROM rm.communication_labels
     WHERE tenant_id = ${tenantId} AND deleted_at IS NULL
       ${ids ? sql`AND id = ANY(${sql.val(ids)}::uuid[])` : sql``}
     ORDER BY sort_order, name, id`.execute(db);
  return rows;
}

async function ownDepartmentNames(db: Kysely<ReadModels>, tenantId: string): Promise<Map<string, string>> {
  const { rows } = await sql<{ id: string; name: string }>`
    SELECT id, name FROM rm.own_departments WHERE tenant_id = ${tenantId}`.execute(db);
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** A label's value as the report shows it: text, number, date, or the chosen selections' names (「、」). */
function labelText(label: LabelRow, value: LabelValueData, departments: Map<string, string>): ReportValue {
  const selectionName = (id: string) =>
    label.selections.find((s) => s.id === id)?.label ?? label.deleted_selections.find((s) => s.id === id)?.label;
  switch (label.component_type) {
    case 'integer':
      return value.integer_value;
    case 'date':
      return value.date_value;
    case 'time':
      return value.time_value;
    case 'select':
    case 'radio':
      return value.selection_id ? (selectionName(value.selection_id) ?? null) : null;
    case 'checkbox': {
      const order = new Map([...label.selections, ...label.deleted_selections].map((s) => [s.id, s.order] as const));
      const names = [...value.selection_ids]
        .sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0))
        .map(selectionName)
        .filter((n): n is string => n !== undefined);
      return names.length > 0 ? names.join('、') : null;
    }
    case 'own_department':
      return value.own_department_id ? (departments.get(value.own_department_id) ?? null) : null;
    default:
      return value.text_value || null;
  }
}
