import { sql, type Kysely, type RawBuilder } from 'kysely';
import {
  labelIdOfItemKey,
  labelItemPrefix,
  runningStatusSelections,
  staticReportItems,
  type ReportItemDefinition,
} from '@renkei/contracts';
import { facilityTypes, prefectures } from '@renkei/institution-master';
import type { ReadModels } from '../../read-models.ts';
import { communicationsProjection } from '../../communications/communications.projection.ts';
import { medicalInstitutionCrmProjection } from '../../medical-institutions/medical-institution-crm.projection.ts';
import { referralsProjection } from '../../referrals/referrals.projection.ts';
import { tagsProjection } from '../../tags/tags.projection.ts';
import { visitRollupsProjection } from '../../visit-rollups/visit-rollups.projection.ts';
import {
  addGroupFigures,
  institutionFilter,
  periodSlots,
  referralFigures,
  runFigureStatement,
  type GroupFigures,
} from '../engine/referral-figures.ts';
import type { ReportSource, ReportSourceRequest, ReportSourceRow } from '../engine/report-source.ts';

const prefectureName = new Map(prefectures.map((p) => [p.code, p.name]));
const facilityTypeName = new Map(facilityTypes.map((t) => [t.id, t.name]));
const runningStatusName = new Map(runningStatusSelections.map((s) => [s.value, s.label]));

interface LabelRow {
  id: string;
  name: string;
  component_type: string;
  selections: { id: string; label: string }[];
  areas: { id: string; name: string }[];
}

const labelValueType = (componentType: string): ReportItemDefinition['value_type'] =>
  componentType === 'integer'
    ? 'integer'
    : componentType === 'date'
      ? 'date'
      : componentType === 'select' || componentType === 'radio' || componentType === 'checkbox'
        ? 'selection'
        : 'string';

async function institutionLabels(db: Kysely<ReadModels>, tenantId: string): Promise<LabelRow[]> {
  const { rows } = await sql<LabelRow>`
    SELECT id, name, component_type, selections, areas FROM rm.medical_institution_labels
     WHERE tenant_id = ${tenantId} ORDER BY sort_order, id`.execute(db);
  return rows;
}

/**
 * The tenant's institutions: every institution of the master with a referral or reverse referral, a
 * communication, a tag, a label value or a phase of this tenant. Partner search has no such notion (it
 * searches the whole master), so the report defines it here. Referrals are found through the 年度 rows
 * of the per-institution rollups (both directions, one row per institution and 年度, read by index only)
 * rather than every month of every own department. `only`: those of them among these ids.
 */
const partnerIds = (tenantId: string, only: readonly string[] | undefined) => sql`
  SELECT medical_institution_id AS id FROM rm.referral_institution_rollups r
   WHERE tenant_id = ${tenantId} AND span = 'fiscal_year'${institutionFilter('r', only)}
  UNION SELECT medical_institution_id FROM rm.communications c WHERE tenant_id = ${tenantId}${institutionFilter('c', only)}
  UNION SELECT medical_institution_id FROM rm.mi_tags t WHERE tenant_id = ${tenantId}${institutionFilter('t', only)}
  UNION SELECT medical_institution_id FROM rm.mi_label_values v WHERE tenant_id = ${tenantId}${institutionFilter('v', only)}
  UNION SELECT medical_institution_id FROM rm.mi_phases p
   WHERE tenant_id = ${tenantId} AND phase_master_id IS NOT NULL${institutionFilter('p', only)}`;

/**
 * Visits (訪問・新規訪問) or every communication per institution and bucket of the period and the
 * comparison period, exact per day, in one statement.
 */
async function communicationFigures(
  db: Kysely<ReadModels>,
  request: ReportSourceRequest,
  item: 'visit_count' | 'communication_count',
): Promise<GroupFigures[]> {
  const s = periodSlots(request.buckets, request.comparisonBuckets);
  if (s.slots.length === 0) return [];
  // Visits per institution come from the visit rollups' per-record source (the daily rollups are per
  // user, not per institution); communications per institution from the records (the day counts are
  // per tenant and type only).
  const table = item === 'visit_count' ? sql`rm.visit_sources` : sql`rm.communications`;
  // One row per institution (cells as arrays), grouped by the uuid and cast once: a row per cell, and a
  // text cast inside the grouping, were most of the statement's time at 20,000 institutions.
  const { rows } = await runFigureStatement(
    db,
    sql<{ group_id: string; slots: number[]; counts: number[] }>`
    WITH cells AS (
      SELECT b.slot, c.medical_institution_id AS group_id, count(*)::int AS n
        FROM unnest(${sql.val(s.slots)}::int[], ${sql.val(s.froms)}::date[], ${sql.val(s.tos)}::date[])
             AS b(slot, from_day, to_day)
        JOIN ${table} c ON c.tenant_id = ${request.tenantId} AND c.acted_date BETWEEN b.from_day AND b.to_day${institutionFilter('c', request.ids)}
       GROUP BY 1, 2)
    SELECT group_id::text AS group_id, array_agg(slot) AS slots, array_agg(n) AS counts FROM cells GROUP BY group_id`,
  );
  return rows.map((r) => ({ group_id: r.group_id, slots: r.slots, counts: { [item]: r.counts } }));
}

/** Every figure family asked for, of the period and the comparison period. */
async function figuresOf(db: Kysely<ReadModels>, request: ReportSourceRequest) {
  const [referrals, visits, communications] = await Promise.all([
    referralFigures(db, {
      tenantId: request.tenantId,
      buckets: request.buckets,
      comparisonBuckets: request.comparisonBuckets,
      items: request.itemKeys,
      groupBy: 'medical_institution_id',
      ownDepartmentIds: request.ownDepartmentIds,
      ...(request.ids ? { institutionIds: request.ids } : {}),
    }),
    request.itemKeys.has('visit_count') ? communicationFigures(db, request, 'visit_count') : [],
    request.itemKeys.has('communication_count') ? communicationFigures(db, request, 'communication_count') : [],
  ]);
  return [...referrals, ...visits, ...communications];
}

interface InstitutionRow {
  id: string;
  code: string;
  name: string;
  prefecture_code: number | null;
  city: string;
  address: string;
  facility_type_id: number | null;
  running_status: string;
  phase_name: string | null;
  last_visit_date: string | null;
  tags: string | null;
  /** The row's place in フリガナ order (then name, id): the order the sort conditions leave ties in. */
  natural_order: number;
}

/** 医療機関レポート: one row per institution of the tenant. */
export const medicalInstitutionReportsSource: ReportSource = {
  kind: 'medical_institution_reports',
  loadsByIds: true,
  answersAnyBucket: true,
  reads: [
    referralsProjection.name,
    medicalInstitutionCrmProjection.name,
    communicationsProjection.name,
    visitRollupsProjection.name,
    tagsProjection.name,
  ],

  async items(db, tenantId) {
    const [labels, phases, tags] = await Promise.all([
      institutionLabels(db, tenantId),
      sql<{
        id: string;
        name: string;
      }>`SELECT id, name FROM rm.phase_masters WHERE tenant_id = ${tenantId} ORDER BY sort_order, id`.execute(db),
      sql<{
        id: string;
        name: string;
      }>`SELECT id, name FROM rm.tags WHERE tenant_id = ${tenantId} ORDER BY name, id`.execute(db),
    ]);
    const statics = staticReportItems.medical_institution_reports.map((item) =>
      item.key === 'phase'
        ? { ...item, selections: phases.rows.map((p) => ({ value: p.id, label: p.name })) }
        : item.key === 'tags'
          ? { ...item, selections: tags.rows.map((t) => ({ value: t.id, label: t.name })) }
          : item,
    );
    return [
      ...statics,
      ...labels.map((l): ReportItemDefinition => ({
        key: `${labelItemPrefix}${l.id}`,
        label: l.name,
        category: 'ラベル',
        value_type: labelValueType(l.component_type),
        selections: (l.selections ?? []).map((s) => ({ value: s.id, label: s.label })),
        filterable: true,
        sortable: true,
        aggregation_methods: [],
        periodic: false,
      })),
    ];
  },

  async load(db, request) {
    const { tenantId, itemKeys } = request;
    const wantsTags = itemKeys.has('tags');
    // Every attribute at once unless only the asked ones are (the engine's first phase over every row).
    const asked = (key: string, column: RawBuilder<unknown>, otherwise: RawBuilder<unknown>) =>
      !request.onlyAskedValues || itemKeys.has(key) ? column : otherwise;
    // The institutions and their figures at once (each its own connection): the figures need no row first.
    const figures = figuresOf(db, request);
    // Silence an early rejection until it is awaited below (the rows' statement may fail first).
    figures.catch(() => undefined);
    // With room to hash: the partner ids' union (a row per communication) sorted on disk at the default.
    const { rows } = await runFigureStatement(
      db,
      sql<InstitutionRow>`
      WITH ids AS (${partnerIds(tenantId, request.ids)})
      SELECT m.id::text AS id, ${asked('medical_institution_code', sql`m.code`, sql`''`)} AS code,
             ${asked('medical_institution_name', sql`m.name`, sql`''`)} AS name,
             ${asked('prefecture', sql`m.prefecture_code`, sql`NULL::int`)} AS prefecture_code,
             ${asked('city', sql`m.city`, sql`''`)} AS city, ${asked('address', sql`m.address`, sql`''`)} AS address,
             ${asked('facility_type', sql`m.facility_type_id`, sql`NULL::int`)} AS facility_type_id,
             ${asked('running_status', sql`m.running_status`, sql`''`)} AS running_status,
             ${asked('phase', sql`pm.name`, sql`NULL::text`)} AS phase_name,
             ${asked('last_visit_date', sql`to_char(lv.last_visit_date, 'YYYY-MM-DD')`, sql`NULL::text`)} AS last_visit_date,
             ${
               wantsTags
                 ? sql`(SELECT string_agg(tg.name, '、' ORDER BY tg.name, tg.id)
                          FROM rm.mi_tags x JOIN rm.tags tg ON tg.tenant_id = x.tenant_id AND tg.id = x.tag_id
                         WHERE x.tenant_id = ${tenantId} AND x.medical_institution_id = m.id)`
                 : sql`NULL::text`
             } AS tags,
             -- Without a sort (or between equals) institutions read in フリガナ order, as the partner
             -- search lists them, not in the order of their ids (which reads as random).
             row_number() OVER (ORDER BY m.kana, m.name, m.id)::int AS natural_order
        FROM ids JOIN ref.medical_institutions m ON m.id = ids.id
        ${asked(
          'phase',
          sql`LEFT JOIN rm.mi_phases ph ON ph.tenant_id = ${tenantId} AND ph.medical_institution_id = m.id
        LEFT JOIN rm.phase_masters pm ON pm.tenant_id = ${tenantId} AND pm.id = ph.phase_master_id`,
          sql``,
        )}
        ${asked(
          'last_visit_date',
          sql`LEFT JOIN rm.mi_last_visits lv ON lv.tenant_id = ${tenantId} AND lv.medical_institution_id = m.id`,
          sql``,
        )}`,
    );

    const byId = new Map<string, ReportSourceRow>();
    for (const r of rows) {
      byId.set(r.id, {
        id: r.id,
        order: r.natural_order,
        values: {
          medical_institution_name: r.name,
          medical_institution_code: r.code || null,
          prefecture: r.prefecture_code !== null ? (prefectureName.get(r.prefecture_code) ?? null) : null,
          city: r.city || null,
          address: r.address || null,
          facility_type: r.facility_type_id !== null ? (facilityTypeName.get(r.facility_type_id) ?? null) : null,
          running_status: runningStatusName.get(r.running_status) ?? null,
          phase: r.phase_name,
          tags: r.tags,
          last_visit_date: r.last_visit_date,
        },
        figures: {},
        comparisonFigures: {},
      });
    }

    const labelIds = [...itemKeys].map(labelIdOfItemKey).filter((id): id is string => id !== null);
    const [groups] = await Promise.all([
      figures,
      labelIds.length > 0 ? addLabelValues(db, tenantId, labelIds, byId, request.ids) : undefined,
    ]);
    addGroupFigures(byId, groups, request.buckets, request.comparisonBuckets);
    return [...byId.values()];
  },
};

/** Each named label's value as text: selections by name (several joined with 、), own departments and areas by name. */
async function addLabelValues(
  db: Kysely<ReadModels>,
  tenantId: string,
  labelIds: readonly string[],
  byId: ReadonlyMap<string, ReportSourceRow>,
  only: readonly string[] | undefined,
): Promise<void> {
  const labels = new Map((await institutionLabels(db, tenantId)).map((l) => [l.id, l]));
  const { rows } = await sql<{
    medical_institution_id: string;
    label_id: string;
    text_value: string | null;
    integer_value: number | null;
    date_value: string | null;
    time_value: string | null;
    selection_id: string | null;
    selection_ids: string[];
    own_department_name: string | null;
    area_id: string | null;
  }>`
    SELECT v.medical_institution_id::text AS medical_institution_id, v.label_id::text AS label_id, v.text_value,
           v.integer_value, to_char(v.date_value, 'YYYY-MM-DD') AS date_value, v.time_value,
           v.selection_id::text AS selection_id, v.selection_ids::text[] AS selection_ids,
           od.name AS own_department_name, v.area_id::text AS area_id
      FROM rm.mi_label_values v
      LEFT JOIN rm.own_departments od ON od.tenant_id = v.tenant_id AND od.id = v.own_department_id
     WHERE v.tenant_id = ${tenantId} AND v.label_id = ANY(${sql.val(labelIds)}::uuid[])${institutionFilter('v', only)}`.execute(
    db,
  );
  for (const v of rows) {
    const row = byId.get(v.medical_institution_id);
    const label = labels.get(v.label_id);
    if (!row || !label) continue;
    const selectionName = new Map((label.selections ?? []).map((s) => [s.id, s.label]));
    const names = (ids: readonly string[]) =>
      ids
        .map((id) => selectionName.get(id))
        .filter((n) => n !== undefined)
        .join('、') || null;
    let value: string | number | null;
    switch (label.component_type) {
      case 'integer':
        value = v.integer_value;
        break;
      case 'date':
        value = v.date_value;
        break;
      case 'time':
        value = v.time_value;
        break;
      case 'select':
      case 'radio':
        value = v.selection_id ? names([v.selection_id]) : null;
        break;
      case 'checkbox':
        value = names(v.selection_ids ?? []);
        break;
      case 'own_department':
        value = v.own_department_name;
        break;
      case 'area':
        value = (label.areas ?? []).find((a) => a.id === v.area_id)?.name ?? null;
        break;
      default:
        value = v.text_value;
    }
    row.values[`${labelItemPrefix}${v.label_id}`] = value;
  }
}
