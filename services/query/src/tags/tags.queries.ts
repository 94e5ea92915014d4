import { sql, type Kysely } from 'kysely';
import type { Tag, TagGroup } from '@renkei/contracts';

interface TagRecord {
  id: string;
  name: string;
  description: string;
  medical_institution_count: number;
  group_id: string | null;
  group_name: string | null;
  version: number;
}

const toTag = (r: TagRecord): Tag => ({
  id: r.id,
  name: r.name,
  description: r.description,
  medical_institution_count: r.medical_institution_count,
  group_name: r.group_name,
  version: r.version,
});

export async function listTags(
  db: Kysely<any>,
  tenantId: string,
  query: { page: number; per_page: number; sort: 'asc' | 'desc' },
): Promise<{ data: Tag[]; meta: { total_count: number; page: number; per_page: number; total_pages: number } }> {
  const direction = query.sort === 'desc' ? sql`DESC` : sql`ASC`;
  const { rows } = await sql<TagRecord & { total_count: string }>`
    SELECT id, name, description, medical_institution_count, group_id, group_name, version,
           count(*) OVER () AS total_count
      FROM rm.tags
     WHERE tenant_id = ${tenantId}
     ORDER BY name ${direction}, id ${direction}
     LIMIT ${query.per_page} OFFSET ${(query.page - 1) * query.per_page}
  `.execute(db);
  let total = rows.length > 0 ? Number(rows[0]!.total_count) : 0;
  if (rows.length === 0 && query.page > 1) {
    // Past the last page: still tell the client how many there are.
    const counted = await sql<{ n: string }>`SELECT count(*) AS n FROM rm.tags WHERE tenant_id = ${tenantId}`.execute(
      db,
    );
    total = Number(counted.rows[0]!.n);
  }
  return {
    data: rows.map(toTag),
    meta: {
      total_count: total,
      page: query.page,
      per_page: query.per_page,
      total_pages: Math.ceil(total / query.per_page),
    },
  };
}

/** Groups with their tags, by name; tags in no group are not listed here (they are on GET /tags). */
export async function listTagGroups(db: Kysely<any>, tenantId: string): Promise<TagGroup[]> {
  const { rows } = await sql<TagRecord>`
    SELECT id, name, description, medical_institution_count, group_id, group_name, version
      FROM rm.tags
     WHERE tenant_id = ${tenantId} AND group_id IS NOT NULL
     ORDER BY group_name, group_id, name, id
  `.execute(db);
  const groups = new Map<string, TagGroup>();
  for (const row of rows) {
    let group = groups.get(row.group_id!);
    if (!group) {
      group = { id: row.group_id!, name: row.group_name!, description: '', tags: [] };
      groups.set(row.group_id!, group);
    }
    group.tags.push(toTag(row));
  }
  return [...groups.values()];
}
