import { sql, type Kysely, type RawBuilder } from 'kysely';
import type {
  CommunicationType,
  VocExportQuery,
  VocGroup,
  VocListItem,
  VocListQuery,
  VocPriority,
  VocStatus,
} from '@renkei/contracts';
import type { ReadModels } from '@renkei/read-models';

type VocConditions = Omit<VocExportQuery, 'encoding'>;

interface VocRow {
  id: string;
  medical_institution_id: string;
  mi_name: string | null;
  title: string;
  reported_date: string;
  status: VocStatus;
  priority: VocPriority;
  detail_text: string;
  action_text: string;
  user_id: string | null;
  user_name: string | null;
  voc_group_id: string | null;
  group_name: string | null;
  communication_ids: string[];
  version: number;
  updated_at: Date;
}

function conditions(tenantId: string, q: VocConditions): RawBuilder<unknown>[] {
  return [
    sql`v.tenant_id = ${tenantId}`,
    ...(q.status ? [sql`v.status = ${q.status}`] : []),
    ...(q.priority ? [sql`v.priority = ${q.priority}`] : []),
    ...(q.voc_group_id ? [sql`v.voc_group_id = ${q.voc_group_id}`] : []),
    ...(q.medical_institution_id ? [sql`v.medical_institution_id = ${q.medical_institution_id}`] : []),
    ...(q.communication_id ? [sql`v.communication_ids @> ARRAY[${q.communication_id}]::uuid[]`] : []),
    ...(q.reported_from ? [sql`v.reported_date >= ${q.reported_from}::date`] : []),
    ...(q.reported_to ? [sql`v.reported_date <= ${q.reported_to}::date`] : []),
  ];
}

const selectVocs = (where: RawBuilder<unknown>) => sql`
  SELECT v.id, v.medical_institution_id, m.name AS mi_name, v.title,
         to_char(v.reported_date, 'YYYY-MM-DD') AS reported_date, v.status, v.priority, v.detail_text,
         v.action_text, v.user_id, a.name AS user_name, g.id AS voc_group_id, g.name AS group_name,
         v.communication_ids, v.version, v.updated_at
    FROM rm.vocs v
    LEFT JOIN rm.mi_accounts a ON a.tenant_id = v.tenant_id AND a.account_id = v.user_id
    LEFT JOIN ref.medical_institutions m ON m.id = v.medical_institution_id
    LEFT JOIN rm.voc_groups g ON g.tenant_id = v.tenant_id AND g.id = v.voc_group_id
   WHERE ${where}`;

/** The rows with their live communications (a deleted communication drops out of the links). */
async function toItems(db: Kysely<ReadModels>, tenantId: string, rows: VocRow[]): Promise<VocListItem[]> {
  const ids = [...new Set(rows.flatMap((r) => r.communication_ids))];
  const communications =
    ids.length === 0
      ? []
      : (
          await sql<{ id: string; communication_type: CommunicationType; acted_date: string }>`
            SELECT id, communication_type, to_char(acted_date, 'YYYY-MM-DD') AS acted_date
              FROM rm.communications
             WHERE tenant_id = ${tenantId} AND id = ANY(${sql.val(ids)}::uuid[])
             ORDER BY acted_date DESC, id`.execute(db)
        ).rows;
  return rows.map((r) => {
    const linked = communications.filter((c) => r.communication_ids.includes(c.id));
    return {
      id: r.id,
      reported_date: r.reported_date,
      medical_institution_id: r.medical_institution_id,
      medical_institution: { id: r.medical_institution_id, name: r.mi_name ?? '' },
      title: r.title,
      status: r.status,
      detail_text: r.detail_text,
      action_text: r.action_text,
      priority: r.priority,
      user: r.user_id ? { id: r.user_id, name: r.user_name ?? '' } : null,
      voc_group_id: r.voc_group_id,
      voc_group: r.voc_group_id ? { id: r.voc_group_id, name: r.group_name ?? '' } : null,
      communication_ids: linked.map((c) => c.id),
      communications: linked,
      updated_at: new Date(r.updated_at).toISOString(),
      version: r.version,
    };
  });
}

function orderOf(q: VocConditions) {
  const dir = q.sort === 'asc' ? sql`ASC` : sql`DESC`;
  const column = q.sort_by === 'updated_at' ? sql`v.updated_at` : sql`v.reported_date`;
  return sql`${column} ${dir}, v.updated_at ${dir}, v.id ${dir}`;
}

export async function listVocs(db: Kysely<ReadModels>, tenantId: string, query: VocListQuery) {
  const where = sql.join(conditions(tenantId, query), sql` AND `);
  const { rows } = await sql<VocRow & { total_count: string }>`
    SELECT *, count(*) OVER () AS total_count FROM (${selectVocs(where)}) v
     ORDER BY ${orderOf(query)}
     LIMIT ${query.per_page} OFFSET ${(query.page - 1) * query.per_page}`.execute(db);
  let total = rows.length > 0 ? Number(rows[0]!.total_count) : 0;
  if (rows.length === 0 && query.page > 1) {
    const counted = await sql<{ n: string }>`SELECT count(*) AS n FROM rm.vocs v WHERE ${where}`.execute(db);
    total = Number(counted.rows[0]!.n);
  }
  return {
    data: await toItems(db, tenantId, rows),
    meta: {
      total_count: total,
      page: query.page,
      per_page: query.per_page,
      total_pages: Math.ceil(total / query.per_page),
    },
  };
}

/** Every VOC of the conditions, in the list's order, a batch at a time (for the CSV). */
export async function* allVocs(db: Kysely<ReadModels>, tenantId: string, query: VocConditions, batch = 500) {
  const where = sql.join(conditions(tenantId, query), sql` AND `);
  for (let offset = 0; ; offset += batch) {
    const { rows } = await sql<VocRow>`
      SELECT * FROM (${selectVocs(where)}) v ORDER BY ${orderOf(query)} LIMIT ${batch} OFFSET ${offset}`.execute(db);
    if (rows.length > 0) yield await toItems(db, tenantId, rows);
    if (rows.length < batch) return;
  }
}

export async function listVocGroups(db: Kysely<ReadModels>, tenantId: string): Promise<VocGroup[]> {
  return db
    .selectFrom('rm.voc_groups')
    .select(['id', 'name'])
    .where('tenant_id', '=', tenantId)
    .orderBy('sort_order')
    .execute();
}
