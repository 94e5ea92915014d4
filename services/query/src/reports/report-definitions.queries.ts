import { sql, type Kysely } from 'kysely';
import type { ReportAlertSettings, ReportDefinition, ReportKind } from '@renkei/contracts';
import type { ReadModels } from '@renkei/read-models';

const pageMeta = (total: number, page: number, perPage: number) => ({
  total_count: total,
  page,
  per_page: perPage,
  total_pages: Math.ceil(total / perPage),
});

export interface ReportDefinitionListQuery {
  page: number;
  per_page: number;
  sort_by: 'create_date' | 'alert_date';
  sort: 'asc' | 'desc';
}

/** Columns of a definition as answered; the creator's current name when the CRM projection knows it. */
const selectDefinition = (db: Kysely<ReadModels>) =>
  db
    .selectFrom('rm.report_definitions as d')
    .leftJoin('rm.mi_accounts as a', (j) =>
      j.onRef('a.tenant_id', '=', 'd.tenant_id').onRef('a.account_id', '=', 'd.created_by_id'),
    )
    .select([
      'd.id',
      'd.kind',
      'd.name',
      'd.definition',
      'd.created_by_id',
      'd.created_at',
      'd.updated_at',
      'd.version',
    ])
    .select([
      sql<string | null>`coalesce(a.name, d.created_by_name)`.as('created_by_name'),
      sql<string | null>`to_char(d.alert_date, 'YYYY-MM-DD')`.as('alert_date'),
    ]);

type DefinitionRow = Awaited<ReturnType<ReturnType<typeof selectDefinition>['executeTakeFirstOrThrow']>>;

function toDefinition(r: DefinitionRow): ReportDefinition {
  return {
    id: r.id,
    kind: r.kind,
    name: r.name,
    display_items: r.definition.display_items,
    filter_conditions: r.definition.filter_conditions,
    sort_conditions: r.definition.sort_conditions,
    aggregation_settings: r.definition.aggregation_settings,
    created_by: r.created_by_id ? { id: r.created_by_id, name: r.created_by_name ?? '' } : null,
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
    alert_date: r.alert_date,
    version: r.version,
  };
}

/**
 * A page of the tenant's definitions of one kind: by creation, or by the day their alert last fired
 * (alerted ones first either way: definitions that never alerted come last), newest by id for ties.
 */
export async function listReportDefinitions(
  db: Kysely<ReadModels>,
  tenantId: string,
  kind: ReportKind,
  query: ReportDefinitionListQuery,
): Promise<{ data: ReportDefinition[]; meta: ReturnType<typeof pageMeta> }> {
  let rows = selectDefinition(db).where('d.tenant_id', '=', tenantId).where('d.kind', '=', kind);
  rows =
    query.sort_by === 'alert_date'
      ? rows.orderBy(sql`d.alert_date ${sql.raw(query.sort)} NULLS LAST`).orderBy('d.created_at', 'desc')
      : rows.orderBy('d.created_at', query.sort);
  const [data, total] = await Promise.all([
    rows
      .orderBy('d.id', query.sort)
      .limit(query.per_page)
      .offset((query.page - 1) * query.per_page)
      .execute(),
    db
      .selectFrom('rm.report_definitions')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('tenant_id', '=', tenantId)
      .where('kind', '=', kind)
      .executeTakeFirstOrThrow(),
  ]);
  return { data: data.map(toDefinition), meta: pageMeta(Number(total.n), query.page, query.per_page) };
}

/** The tenant's definition of this kind; null for another tenant's, another kind's, a deleted one or a made-up id. */
export async function getReportDefinition(
  db: Kysely<ReadModels>,
  tenantId: string,
  kind: ReportKind,
  id: string,
): Promise<ReportDefinition | null> {
  const row = await selectDefinition(db)
    .where('d.tenant_id', '=', tenantId)
    .where('d.kind', '=', kind)
    .where('d.id', '=', id)
    .executeTakeFirst();
  return row ? toDefinition(row) : null;
}

/** An institution report's alert settings; null where `getReportDefinition` would be. */
export async function getReportAlertSettings(
  db: Kysely<ReadModels>,
  tenantId: string,
  id: string,
): Promise<{ settings: ReportAlertSettings; version: number } | null> {
  const row = await db
    .selectFrom('rm.report_definitions')
    .select(['alert_settings', 'version'])
    .where('tenant_id', '=', tenantId)
    .where('kind', '=', 'medical_institution_reports')
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? { settings: row.alert_settings, version: row.version } : null;
}
