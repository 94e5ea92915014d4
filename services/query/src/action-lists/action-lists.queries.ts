import { sql, type Kysely } from 'kysely';
import type {
  ActionList,
  ActionListItem,
  ActionListItemStatus,
  ActionListItemsQuery,
  MedicalInstitutionActionList,
  Period,
  RunningStatus,
} from '@renkei/contracts';
import type { ReadModels } from '@renkei/read-models';

const pageMeta = (total: number, page: number, perPage: number) => ({
  total_count: total,
  page,
  per_page: perPage,
  total_pages: Math.ceil(total / perPage),
});

const listsWithCreator = (db: Kysely<ReadModels>, tenantId: string) =>
  db
    .selectFrom('rm.action_lists as l')
    .leftJoin('rm.mi_accounts as a', (j) =>
      j.onRef('a.tenant_id', '=', 'l.tenant_id').onRef('a.account_id', '=', 'l.created_by'),
    )
    .select([
      'l.id',
      'l.name',
      'l.status',
      'l.medical_institution_count',
      'l.actioned_count',
      'l.created_by',
      'a.name as created_by_name',
      'l.created_at',
      'l.version',
    ])
    .where('l.tenant_id', '=', tenantId);

type ListRow = Awaited<ReturnType<ReturnType<typeof listsWithCreator>['executeTakeFirstOrThrow']>>;

const toActionList = (r: ListRow): ActionList => ({
  id: r.id,
  name: r.name,
  status: r.status,
  medical_institution_count: r.medical_institution_count,
  actioned_count: r.actioned_count,
  created_by: r.created_by ? { id: r.created_by, name: r.created_by_name ?? '' } : null,
  created_at: new Date(r.created_at).toISOString(),
  version: r.version,
});

/** The tenant's lists, newest first, with who created them. */
export async function listActionLists(
  db: Kysely<ReadModels>,
  tenantId: string,
  query: { page: number; per_page: number },
): Promise<{ data: ActionList[]; meta: ReturnType<typeof pageMeta> }> {
  const [rows, total] = await Promise.all([
    listsWithCreator(db, tenantId)
      .orderBy('l.created_at', 'desc')
      .orderBy('l.id', 'desc')
      .limit(query.per_page)
      .offset((query.page - 1) * query.per_page)
      .execute(),
    db
      .selectFrom('rm.action_lists')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('tenant_id', '=', tenantId)
      .executeTakeFirstOrThrow(),
  ]);
  return { data: rows.map(toActionList), meta: pageMeta(Number(total.n), query.page, query.per_page) };
}

/** One live list of the tenant; null for another tenant's, a deleted one or a made-up id. */
export async function getActionList(db: Kysely<ReadModels>, tenantId: string, id: string): Promise<ActionList | null> {
  const row = await listsWithCreator(db, tenantId).where('l.id', '=', id).executeTakeFirst();
  return row ? toActionList(row) : null;
}

/** The name of the tenant's live list; null for another tenant's, a deleted one or a made-up id. */
export async function actionListName(db: Kysely<ReadModels>, tenantId: string, id: string): Promise<string | null> {
  const row = await db
    .selectFrom('rm.action_lists')
    .select('name')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.name ?? null;
}

interface ItemRow {
  medical_institution_id: string;
  name: string | null;
  address: string | null;
  tel: string | null;
  running_status: RunningStatus | null;
  status: ActionListItemStatus;
  updated_by: string | null;
  updated_by_name: string | null;
  updated_at: Date;
  referral_count: number | null;
  comparison_referral_count: number | null;
  last_visit_date: string | null;
}

type ItemFilter = ActionListItemsQuery['status'];

/** The periods of the items' referral figures (either may be left out: its figures are then null). */
interface ItemReferralPeriods {
  referral_period?: Period | undefined;
  comparison_referral_period?: Period | undefined;
}

/**
 * One period's referrals of the item's institution, as the partner search counts them: the monthly
 * rollups of the whole months the period touches. Keyed on the item's id, so an institution dropped from
 * the master keeps its figures.
 */
const referralsWithin = (tenantId: string, period: Period | undefined) =>
  period
    ? sql`(SELECT coalesce(sum(r.referral_count), 0)::int FROM rm.referral_monthly_rollups r
            WHERE r.tenant_id = ${tenantId} AND r.medical_institution_id = i.medical_institution_id
              AND r.month >= date_trunc('month', ${period.from}::date) AND r.month <= ${period.to}::date)`
    : sql`NULL::int`;

// An institution dropped from the shared master since it was put on the list stays on it (its count
// and its row), shown as unknown rather than silently left out.
const selectItems = (tenantId: string, listId: string, filter: ItemFilter, periods: ItemReferralPeriods) => sql`
  SELECT i.medical_institution_id, m.name, m.address, m.tel, m.running_status, i.status, i.updated_by,
         a.name AS updated_by_name, i.updated_at, i.added_at,
         ${referralsWithin(tenantId, periods.referral_period)} AS referral_count,
         ${referralsWithin(tenantId, periods.comparison_referral_period)} AS comparison_referral_count,
         to_char(lv.last_visit_date, 'YYYY-MM-DD') AS last_visit_date
    FROM rm.action_list_items i
    LEFT JOIN ref.medical_institutions m ON m.id = i.medical_institution_id
    LEFT JOIN rm.mi_accounts a ON a.tenant_id = i.tenant_id AND a.account_id = i.updated_by
    LEFT JOIN rm.mi_last_visits lv ON lv.tenant_id = i.tenant_id AND lv.medical_institution_id = i.medical_institution_id
   WHERE i.tenant_id = ${tenantId} AND i.action_list_id = ${listId}
     AND ${filter === 'all' ? sql`TRUE` : sql`i.status = ${filter}`}`;

function toItem(r: ItemRow): ActionListItem {
  return {
    medical_institution: {
      id: r.medical_institution_id,
      name: r.name ?? '（マスタにない医療機関）',
      address: r.address ?? '',
      tel: r.tel || null,
      running_status: r.running_status ?? 'unknown',
      referral_count: r.referral_count,
      comparison_referral_count: r.comparison_referral_count,
      // As the partner search: no rate without a comparison count to divide by.
      rate_of_referral_change:
        r.referral_count !== null && r.comparison_referral_count
          ? (r.referral_count - r.comparison_referral_count) / r.comparison_referral_count
          : null,
      last_visit_date: r.last_visit_date,
    },
    status: r.status,
    updated_by: r.updated_by ? { id: r.updated_by, name: r.updated_by_name ?? '' } : null,
    updated_at: new Date(r.updated_at).toISOString(),
  };
}

/** A page of a list's institutions in the order they were put on it (by name within one addition). */
export async function listActionListItems(
  db: Kysely<ReadModels>,
  tenantId: string,
  listId: string,
  query: ActionListItemsQuery,
) {
  const [{ rows }, counted] = await Promise.all([
    sql<ItemRow>`
      SELECT * FROM (${selectItems(tenantId, listId, query.status, query)}) x
       ORDER BY x.added_at, x.name, x.medical_institution_id
       LIMIT ${query.per_page} OFFSET ${(query.page - 1) * query.per_page}`.execute(db),
    sql<{ n: string }>`
      SELECT count(*) AS n FROM rm.action_list_items
       WHERE tenant_id = ${tenantId} AND action_list_id = ${listId}
         AND ${query.status === 'all' ? sql`TRUE` : sql`status = ${query.status}`}`.execute(db),
  ]);
  return { data: rows.map(toItem), meta: pageMeta(Number(counted.rows[0]!.n), query.page, query.per_page) };
}

/** Every item of the filter, in the list's order, a batch at a time (the CSV export). */
export async function* allActionListItems(
  db: Kysely<ReadModels>,
  tenantId: string,
  listId: string,
  filter: ItemFilter,
  periods: ItemReferralPeriods = {},
  batch = 1000,
): AsyncGenerator<ActionListItem[]> {
  for (let offset = 0; ; offset += batch) {
    const { rows } = await sql<ItemRow>`
      SELECT * FROM (${selectItems(tenantId, listId, filter, periods)}) x
       ORDER BY x.added_at, x.name, x.medical_institution_id LIMIT ${batch} OFFSET ${offset}`.execute(db);
    if (rows.length > 0) yield rows.map(toItem);
    if (rows.length < batch) return;
  }
}

/** The tenant's lists that hold an institution, newest first, with the item's status on each. */
export async function actionListsOfInstitution(
  db: Kysely<ReadModels>,
  tenantId: string,
  institutionId: string,
): Promise<MedicalInstitutionActionList[]> {
  const rows = await db
    .selectFrom('rm.action_list_items as i')
    .innerJoin('rm.action_lists as l', (j) =>
      j.onRef('l.tenant_id', '=', 'i.tenant_id').onRef('l.id', '=', 'i.action_list_id'),
    )
    .select(['l.id', 'l.name', 'l.status', 'i.status as item_status'])
    .where('i.tenant_id', '=', tenantId)
    .where('i.medical_institution_id', '=', institutionId)
    .orderBy('l.created_at', 'desc')
    .orderBy('l.id', 'desc')
    .execute();
  return rows;
}
