import type { Kysely, Selectable } from 'kysely';
import type { Tag, TagGroup } from '@renkei/contracts';
import type { ReadModels } from '@renkei/read-models';

const tagColumns = [
  'id',
  'name',
  'description',
  'medical_institution_count',
  'group_id',
  'group_name',
  'version',
] as const;
type TagRecord = Pick<Selectable<ReadModels['rm.tags']>, (typeof tagColumns)[number]>;

const toTag = (r: TagRecord): Tag => ({
  id: r.id,
  name: r.name,
  description: r.description,
  medical_institution_count: r.medical_institution_count,
  group_name: r.group_name,
  version: r.version,
});

export async function listTags(
  db: Kysely<ReadModels>,
  tenantId: string,
  query: { page: number; per_page: number; sort: 'asc' | 'desc' },
): Promise<{ data: Tag[]; meta: { total_count: number; page: number; per_page: number; total_pages: number } }> {
  const rows = await db
    .selectFrom('rm.tags')
    .select(tagColumns)
    .select((eb) => eb.fn.countAll<string>().over().as('total_count'))
    .where('tenant_id', '=', tenantId)
    .orderBy('name', query.sort)
    .orderBy('id', query.sort)
    .limit(query.per_page)
    .offset((query.page - 1) * query.per_page)
    .execute();
  let total = rows.length > 0 ? Number(rows[0]!.total_count) : 0;
  if (rows.length === 0 && query.page > 1) {
    // Past the last page: still tell the client how many there are.
    const counted = await db
      .selectFrom('rm.tags')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('tenant_id', '=', tenantId)
      .executeTakeFirstOrThrow();
    total = Number(counted.n);
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
export async function listTagGroups(db: Kysely<ReadModels>, tenantId: string): Promise<TagGroup[]> {
  const rows = await db
    .selectFrom('rm.tags')
    .select(tagColumns)
    .where('tenant_id', '=', tenantId)
    .where('group_id', 'is not', null)
    .orderBy('group_name')
    .orderBy('group_id')
    .orderBy('name')
    .orderBy('id')
    .execute();
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
