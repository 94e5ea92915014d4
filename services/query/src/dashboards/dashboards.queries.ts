import { sql, type Kysely } from 'kysely';
import type { Dashboard } from '@renkei/contracts';
import type { ReadModels } from '@renkei/read-models';

const pageMeta = (total: number, page: number, perPage: number) => ({
  total_count: total,
  page,
  per_page: perPage,
  total_pages: Math.ceil(total / perPage),
});

/** A dashboard's columns as answered; the creator's current name when the CRM projection knows it. */
const selectDashboard = (db: Kysely<ReadModels>) =>
  db
    .selectFrom('rm.dashboards as d')
    .leftJoin('rm.mi_accounts as a', (j) =>
      j.onRef('a.tenant_id', '=', 'd.tenant_id').onRef('a.account_id', '=', 'd.created_by'),
    )
    .select([
      'd.id',
      'd.name',
      'd.filter_department',
      'd.medical_institution_label_id',
      'd.contents',
      'd.created_by',
      'd.updated_at',
      'd.version',
    ])
    .select(sql<string | null>`coalesce(a.name, d.created_by_name)`.as('created_by_name'));

type DashboardRow = Awaited<ReturnType<ReturnType<typeof selectDashboard>['executeTakeFirstOrThrow']>>;

const toDashboard = (r: DashboardRow): Dashboard => ({
  id: r.id,
  name: r.name,
  filter_department: r.filter_department,
  medical_institution_label_id: r.medical_institution_label_id,
  contents: r.contents,
  created_by: r.created_by ? { id: r.created_by, name: r.created_by_name ?? '' } : null,
  updated_at: new Date(r.updated_at).toISOString(),
  version: r.version,
});

/** The tenant's dashboards, newest first. */
export async function listDashboards(
  db: Kysely<ReadModels>,
  tenantId: string,
  query: { page: number; per_page: number },
): Promise<{ data: Dashboard[]; meta: ReturnType<typeof pageMeta> }> {
  const [rows, total] = await Promise.all([
    selectDashboard(db)
      .where('d.tenant_id', '=', tenantId)
      .orderBy('d.created_at', 'desc')
      .orderBy('d.id', 'desc')
      .limit(query.per_page)
      .offset((query.page - 1) * query.per_page)
      .execute(),
    db
      .selectFrom('rm.dashboards')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('tenant_id', '=', tenantId)
      .executeTakeFirstOrThrow(),
  ]);
  return { data: rows.map(toDashboard), meta: pageMeta(Number(total.n), query.page, query.per_page) };
}

/** The tenant's dashboard; null for another tenant's, a deleted one or a made-up id. */
export async function getDashboard(db: Kysely<ReadModels>, tenantId: string, id: string): Promise<Dashboard | null> {
  const row = await selectDashboard(db).where('d.tenant_id', '=', tenantId).where('d.id', '=', id).executeTakeFirst();
  return row ? toDashboard(row) : null;
}
