import { sql, type Kysely } from 'kysely';
import type { RunningStatus, Task, TaskListQuery, TaskStatus } from '@renkei/contracts';
import { departments } from '@renkei/institution-master';
import type { ReadModels } from '@renkei/read-models';

const departmentById = new Map(departments.map((d) => [d.id, d]));

interface TaskRow {
  id: string;
  title: string;
  staff_id: string | null;
  staff_name: string | null;
  deadline: string | null;
  medical_institution_id: string | null;
  communication_id: string | null;
  status: TaskStatus;
  version: number;
  created_at: Date;
  mi_name: string | null;
  running_status: RunningStatus | null;
  address: string | null;
  tel: string | null;
  department_ids: number[] | null;
  total_count: string;
}

const select = (tenantId: string) => sql`
  SELECT t.id, t.title, t.staff_id, a.name AS staff_name, to_char(t.deadline, 'YYYY-MM-DD') AS deadline,
         t.medical_institution_id, t.communication_id, t.status, t.version, t.created_at,
         m.name AS mi_name, m.running_status, m.address, m.tel, m.department_ids
    FROM rm.tasks t
    LEFT JOIN rm.mi_accounts a ON a.tenant_id = t.tenant_id AND a.account_id = t.staff_id
    LEFT JOIN ref.medical_institutions m ON m.id = t.medical_institution_id
   WHERE t.tenant_id = ${tenantId}`;

function toTask(r: TaskRow): Task {
  return {
    id: r.id,
    created_at: new Date(r.created_at).toISOString(),
    deadline: r.deadline,
    title: r.title,
    medical_institution:
      r.medical_institution_id && r.mi_name !== null
        ? {
            id: r.medical_institution_id,
            name: r.mi_name,
            running_status: r.running_status!,
            address: r.address ?? '',
            tel: r.tel || null,
            departments: (r.department_ids ?? []).flatMap((d) => {
              const found = departmentById.get(d);
              return found ? [{ id: String(found.id).padStart(2, '0'), name: found.name }] : [];
            }),
          }
        : null,
    status: r.status,
    staff: r.staff_id ? { id: r.staff_id, name: r.staff_name ?? '' } : null,
    communication_id: r.communication_id,
    version: r.version,
  };
}

export async function listTasks(db: Kysely<ReadModels>, tenantId: string, query: TaskListQuery) {
  const dir = query.sort === 'asc' ? sql`ASC` : sql`DESC`;
  const filters = [
    query.status === 'all' ? sql`TRUE` : sql`t.status = ${query.status}`,
    query.medical_institution_id ? sql`t.medical_institution_id = ${query.medical_institution_id}` : sql`TRUE`,
    query.user_id ? sql`t.staff_id = ${query.user_id}` : sql`TRUE`,
  ];
  const order = query.sort_by === 'deadline' ? sql`t.deadline ${dir} NULLS LAST` : sql`t.created_at ${dir}`;
  const { rows } = await sql<TaskRow>`
    SELECT *, count(*) OVER () AS total_count FROM (${select(tenantId)} AND ${sql.join(filters, sql` AND `)}) t
     ORDER BY ${order}, t.id ${dir}
     LIMIT ${query.per_page} OFFSET ${(query.page - 1) * query.per_page}`.execute(db);
  let total = rows.length > 0 ? Number(rows[0]!.total_count) : 0;
  if (rows.length === 0 && query.page > 1) {
    const counted = await sql<{ n: string }>`
      SELECT count(*) AS n FROM (${select(tenantId)} AND ${sql.join(filters, sql` AND `)}) t`.execute(db);
    total = Number(counted.rows[0]!.n);
  }
  return {
    data: rows.map(toTask),
    meta: {
      total_count: total,
      page: query.page,
      per_page: query.per_page,
      total_pages: Math.ceil(total / query.per_page),
    },
  };
}

export async function getTask(db: Kysely<ReadModels>, tenantId: string, id: string): Promise<Task | null> {
  const { rows } = await sql<TaskRow>`${select(tenantId)} AND t.id = ${id}`.execute(db);
  return rows[0] ? toTask(rows[0]) : null;
}
