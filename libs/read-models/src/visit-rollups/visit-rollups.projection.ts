import { sql, type Transaction } from 'kysely';
import { defineProjection } from '@renkei/projections';
import {
  CommunicationCreated,
  CommunicationDeleted,
  CommunicationsImported,
  communicationEventSchemas,
  eventDecoder,
  taskEventSchemas,
  type CommunicationFields,
} from '@renkei/domain';
import { createTables, insertRows, tableNames } from '../shared/table.ts';
import { masterRuns } from '../shared/master-attributes.ts';
import {
  noFacilityType,
  noPrefecture,
  visitAttributeBasesTable,
  visitAttributeMonthlyRollupsTable,
  visitDailyRollupsTable,
  visitMonthlyRollupsTable,
  visitSourcesTable,
  visitTaskLinksTable,
  visitTenantDailyRollupsTable,
  visitTenantMonthlyRollupsTable,
} from './visit-rollups.tables.ts';

const decode = eventDecoder({
  CommunicationCreated,
  CommunicationImportAdopted: communicationEventSchemas.CommunicationImportAdopted,
  CommunicationsImported,
  CommunicationUpdated: communicationEventSchemas.CommunicationUpdated,
  CommunicationDeleted,
  ...taskEventSchemas,
});
const tables = [
  visitSourcesTable,
  visitTaskLinksTable,
  visitDailyRollupsTable,
  visitTenantDailyRollupsTable,
  visitMonthlyRollupsTable,
  visitTenantMonthlyRollupsTable,
  visitAttributeMonthlyRollupsTable,
  visitAttributeBasesTable,
] as const;

/** The communication types the visit charts count (docs/decisions.md, Visit analysis). */
export const visitTypes = ['visit', 'new_visit'] as const;
const isVisit = (type: string): type is (typeof visitTypes)[number] => (visitTypes as readonly string[]).includes(type);

type Tables = Record<(typeof tables)[number]['name'], string>;
interface Ref {
  tenantId: string;
  id: string;
}

/**
 * Visit rollups for the visit charts (`/charts/visits*`): per tenant, day, staff member and visit type,
 * the same per day and per month over all staff, and per month, the number of visits, of visits where a doctor was met and of visits with a
 * linked task. Each batch folds its records, notes the rollup keys the touched records had before and
 * have after, and sums those keys again from `visit_sources` (the days) and the days (the months), so
 * creates, edits that move a visit to another day, staff member or type, deletes and task links keep
 * the rollups exact, a replay changes nothing and a rebuild gives the same rows.
 */
export const visitRollupsProjection = defineProjection({
  name: 'visit_rollups',
  // v2 (docs/decisions.md, Visit analysis at 1,000,000 records): per-tenant daily and monthly rows without
  // the staff dimension, and a covering index so charts filtered by institution read the per-visit rows index-only.
  // v3: monthly rows per facility type and prefecture (with the master sync they were summed against).
  version: 3,
  eventTypes: decode.types,
  tables: tableNames(tables),
  async setup(trx, t) {
    await createTables(trx, tables, t);
    // A chart filtered by institution attributes reads a period's visits of the asked types: with every
    // counted field in the index, that is an index-only range scan instead of a heap row per visit.
    await sql`
      CREATE INDEX ON ${sql.table(t.visit_sources)} (tenant_id, communication_type, acted_date)
      INCLUDE (medical_institution_id, user_id, is_doctor_attended, has_next_action)`.execute(trx);
  },
  async handle(trx, events, t) {
    const records = new Map<
      string,
      { tenantId: string; id: string; fields: CommunicationFields | null; revision: number }
    >();
    const links = new Map<string, { tenantId: string; taskId: string; communicationId: string | null }>();
    const deletedRecords: Ref[] = [];
    for (const recorded of events) {
      const event = decode(recorded);
      const tenantId = recorded.metadata.tenant_id;
      switch (event.type) {
        case 'CommunicationsImported':
          // An import chunk's records (no tasks); revision -1 ranks below their own stream's first event.
          for (const fields of event.data.records)
            records.set(`${tenantId}:${fields.communication_id}`, {
              tenantId,
              id: fields.communication_id,
              fields,
              revision: -1,
            });
          break;
        case 'CommunicationCreated':
        case 'CommunicationImportAdopted':
        case 'CommunicationUpdated': {
          const {
            tasks,
            import_id: _import,
            imported_at: _at,
            ...fields
          } = { tasks: [], import_id: null, imported_at: null, ...event.data };
          records.set(`${tenantId}:${fields.communication_id}`, {
            tenantId,
            id: fields.communication_id,
            fields,
            revision: recorded.revision,
          });
          for (const task of tasks)
            links.set(`${tenantId}:${task.task_id}`, {
              tenantId,
              taskId: task.task_id,
              communicationId: fields.communication_id,
            });
          break;
        }
        case 'CommunicationDeleted': {
          const id = event.data.communication_id;
          records.set(`${tenantId}:${id}`, { tenantId, id, fields: null, revision: recorded.revision });
          deletedRecords.push({ tenantId, id });
          // The record's tasks stay, unlinked (as rm.tasks keeps them): drop the links seen in this batch.
          for (const [key, link] of links)
            if (link.tenantId === tenantId && link.communicationId === id) links.delete(key);
          break;
        }
        case 'TaskCreated':
        case 'TaskUpdated':
          links.set(`${tenantId}:${event.data.task_id}`, {
            tenantId,
            taskId: event.data.task_id,
            communicationId: event.data.communication_id,
          });
          break;
        case 'TaskDeleted':
          links.set(`${tenantId}:${event.data.task_id}`, {
            tenantId,
            taskId: event.data.task_id,
            communicationId: null,
          });
          break;
        default: {
          const never: never = event;
          throw new Error(`visit rollups projection: unexpected event ${JSON.stringify(never)}`);
        }
      }
    }

    // Every communication whose count may change: the records themselves and those a task link names,
    // before (old links) and after (new links) this batch.
    const touched = new Map<string, Ref>();
    for (const r of records.values()) touched.set(`${r.tenantId}:${r.id}`, { tenantId: r.tenantId, id: r.id });
    for (const l of links.values())
      if (l.communicationId)
        touched.set(`${l.tenantId}:${l.communicationId}`, { tenantId: l.tenantId, id: l.communicationId });
    const linkList = [...links.values()];
    if (linkList.length > 0) {
      const { rows } = await sql<{ tenant_id: string; communication_id: string }>`
        SELECT l.tenant_id, l.communication_id FROM ${sql.table(t.visit_task_links)} l
          JOIN unnest(${sql.val(linkList.map((l) => l.tenantId))}::uuid[], ${sql.val(linkList.map((l) => l.taskId))}::uuid[])
               AS k(tenant_id, task_id) ON l.tenant_id = k.tenant_id AND l.task_id = k.task_id`.execute(trx);
      for (const r of rows)
        touched.set(`${r.tenant_id}:${r.communication_id}`, { tenantId: r.tenant_id, id: r.communication_id });
    }
    if (touched.size === 0) return;
    const refs = [...touched.values()];
    const dayKeys = new Map<string, DayKey>();
    for (const k of await keysOf(trx, t, refs)) dayKeys.set(dayKeyString(k), k);
    const attributes = await attributesBefore(trx, t, refs);

    // Sources: visits upserted (never behind a later save), everything else removed.
    const live = [...records.values()].filter((r) => r.fields && isVisit(r.fields.communication_type));
    await insertRows(
      trx,
      t.visit_sources,
      visitSourcesTable,
      live.map((r) => ({
        tenant_id: r.tenantId,
        communication_id: r.fields!.communication_id,
        medical_institution_id: r.fields!.medical_institution_id,
        user_id: r.fields!.user_id,
        communication_type: r.fields!.communication_type as (typeof visitTypes)[number],
        acted_date: r.fields!.acted_date,
        is_doctor_attended: r.fields!.is_doctor_attended,
        revision: r.revision,
      })),
      {
        columns: [
          'tenant_id',
          'communication_id',
          'medical_institution_id',
          'user_id',
          'communication_type',
          'acted_date',
          'is_doctor_attended',
          'revision',
        ],
        onConflict: sql`ON CONFLICT (tenant_id, communication_id) DO UPDATE SET
          medical_institution_id = excluded.medical_institution_id, user_id = excluded.user_id,
          communication_type = excluded.communication_type, acted_date = excluded.acted_date,
          is_doctor_attended = excluded.is_doctor_attended, revision = excluded.revision
          WHERE ${sql.table(t.visit_sources)}.revision < excluded.revision`,
      },
    );
    const gone = [...records.values()].filter((r) => !r.fields || !isVisit(r.fields.communication_type));
    if (gone.length > 0) {
      await sql`
        DELETE FROM ${sql.table(t.visit_sources)} AS cur
         USING unnest(${sql.val(gone.map((r) => r.tenantId))}::uuid[], ${sql.val(gone.map((r) => r.id))}::uuid[],
                      ${sql.val(gone.map((r) => r.revision))}::int[]) AS d(tenant_id, id, revision)
         WHERE cur.tenant_id = d.tenant_id AND cur.communication_id = d.id AND cur.revision < d.revision`.execute(trx);
    }

    // Task links: set, moved or removed; a deleted record loses its links.
    const linked = linkList.filter((l) => l.communicationId !== null);
    await insertRows(
      trx,
      t.visit_task_links,
      visitTaskLinksTable,
      linked.map((l) => ({ tenant_id: l.tenantId, task_id: l.taskId, communication_id: l.communicationId! })),
      { onConflict: sql`ON CONFLICT (tenant_id, task_id) DO UPDATE SET communication_id = excluded.communication_id` },
    );
    const unlinked = linkList.filter((l) => l.communicationId === null);
    if (unlinked.length > 0)
      await sql`
        DELETE FROM ${sql.table(t.visit_task_links)} AS cur
         USING unnest(${sql.val(unlinked.map((l) => l.tenantId))}::uuid[], ${sql.val(unlinked.map((l) => l.taskId))}::uuid[])
               AS d(tenant_id, task_id)
         WHERE cur.tenant_id = d.tenant_id AND cur.task_id = d.task_id`.execute(trx);
    if (deletedRecords.length > 0)
      await sql`
        DELETE FROM ${sql.table(t.visit_task_links)} AS cur
         USING unnest(${sql.val(deletedRecords.map((d) => d.tenantId))}::uuid[], ${sql.val(deletedRecords.map((d) => d.id))}::uuid[])
               AS d(tenant_id, id)
         WHERE cur.tenant_id = d.tenant_id AND cur.communication_id = d.id`.execute(trx);

    await refreshNextActions(trx, t, refs);
    for (const k of await keysOf(trx, t, refs)) dayKeys.set(dayKeyString(k), k);
    await resumDays(trx, t, [...dayKeys.values()]);
    await attributesAfter(trx, t, refs, attributes);
  },
});

interface AttributeBatch {
  /** Master sync runs read before any master row (null: a sync is running, or no master). */
  runs: number | null;
  /** Tenants whose attribute rows were summed against this master: they take deltas. */
  current: Set<string>;
  /** Their touched visits' contributions before the batch's writes, to subtract. */
  before: AttributeSum[];
}
interface AttributeSum {
  tenant_id: string;
  month: string;
  communication_type: string;
  facility_type_id: number;
  prefecture_code: number;
  visits: number;
  doctors: number;
  actions: number;
}

/** What the given visits add to the attribute rows, per row key, from their current source rows. */
async function attributeSums(trx: Transaction<unknown>, t: Tables, refs: Ref[]): Promise<AttributeSum[]> {
  if (refs.length === 0) return [];
  const { rows } = await sql<AttributeSum>`
    SELECT s.tenant_id, to_char(date_trunc('month', s.acted_date), 'YYYY-MM-DD') AS month, s.communication_type,
           coalesce(m.facility_type_id, ${noFacilityType}) AS facility_type_id,
           coalesce(m.prefecture_code::int, ${noPrefecture}) AS prefecture_code, count(*)::int AS visits,
           count(*) FILTER (WHERE s.is_doctor_attended)::int AS doctors,
           count(*) FILTER (WHERE s.has_next_action)::int AS actions
      FROM ${sql.table(t.visit_sources)} s
      JOIN unnest(${sql.val(refs.map((r) => r.tenantId))}::uuid[], ${sql.val(refs.map((r) => r.id))}::uuid[])
           AS k(tenant_id, id) ON s.tenant_id = k.tenant_id AND s.communication_id = k.id
      LEFT JOIN ref.medical_institutions m ON m.id = s.medical_institution_id
     GROUP BY 1, 2, 3, 4, 5`.execute(trx);
  return rows;
}

/**
 * Before the batch writes: the master's run count (read before any master row), which tenants' rows
 * were summed against it, and what their touched visits contribute now.
 */
async function attributesBefore(trx: Transaction<unknown>, t: Tables, refs: Ref[]): Promise<AttributeBatch> {
  const runs = await masterRuns(trx);
  const tenants = [...new Set(refs.map((r) => r.tenantId))];
  const { rows: bases } = await sql<{ tenant_id: string; master_runs: number | null }>`
    SELECT tenant_id, master_runs FROM ${sql.table(t.visit_attribute_bases)}
     WHERE tenant_id = ANY(${sql.val(tenants)}::uuid[])`.execute(trx);
  const current = new Set(bases.filter((b) => runs !== null && b.master_runs === runs).map((b) => b.tenant_id));
  return {
    runs,
    current,
    before: await attributeSums(
      trx,
      t,
      refs.filter((r) => current.has(r.tenantId)),
    ),
  };
}

/**
 * After the batch writes: tenants summed against the current master take the difference their touched
 * visits made (after minus before, both joined to the same master); the others have every month summed
 * again against the master as it is now. While a sync runs nothing is summed and the tenants' rows are
 * marked unusable (the charts read the visits), to be summed again by their next batch.
 */
async function attributesAfter(
  trx: Transaction<unknown>,
  t: Tables,
  refs: Ref[],
  { runs, current, before }: AttributeBatch,
): Promise<void> {
  const tenants = [...new Set(refs.map((r) => r.tenantId))];
  const stale = tenants.filter((id) => !current.has(id));
  const columns = sql`(tenant_id, month, communication_type, facility_type_id, prefecture_code, visit_count,
                       doctor_interview_count, next_action_count)`;
  const deltas = new Map<string, AttributeSum>();
  const add = (r: AttributeSum, sign: number) => {
    const key = `${r.tenant_id}|${r.month}|${r.communication_type}|${r.facility_type_id}|${r.prefecture_code}`;
    const d = deltas.get(key) ?? { ...r, visits: 0, doctors: 0, actions: 0 };
    d.visits += sign * r.visits;
    d.doctors += sign * r.doctors;
    d.actions += sign * r.actions;
    deltas.set(key, d);
  };
  for (const r of before) add(r, -1);
  for (const r of await attributeSums(
    trx,
    t,
    refs.filter((r) => current.has(r.tenantId)),
  ))
    add(r, 1);
  const changed = [...deltas.values()].filter((d) => d.visits !== 0 || d.doctors !== 0 || d.actions !== 0);
  if (changed.length > 0) {
    const col = <K extends keyof AttributeSum>(k: K) => sql.val(changed.map((d) => d[k]));
    const k = sql`unnest(${col('tenant_id')}::uuid[], ${col('month')}::date[], ${col('communication_type')}::text[],
                         ${col('facility_type_id')}::int[], ${col('prefecture_code')}::int[], ${col('visits')}::int[],
                         ${col('doctors')}::int[], ${col('actions')}::int[])
                  AS k(tenant_id, month, communication_type, facility_type_id, prefecture_code, visits, doctors, actions)`;
    await sql`
      INSERT INTO ${sql.table(t.visit_attribute_monthly_rollups)} AS cur ${columns}
      SELECT * FROM ${k}
      ON CONFLICT (tenant_id, communication_type, month, facility_type_id, prefecture_code) DO UPDATE SET
        visit_count = cur.visit_count + excluded.visit_count,
        doctor_interview_count = cur.doctor_interview_count + excluded.doctor_interview_count,
        next_action_count = cur.next_action_count + excluded.next_action_count`.execute(trx);
    await sql`
      DELETE FROM ${sql.table(t.visit_attribute_monthly_rollups)} AS cur USING ${k}
       WHERE cur.tenant_id = k.tenant_id AND cur.month = k.month AND cur.communication_type = k.communication_type
         AND cur.facility_type_id = k.facility_type_id AND cur.prefecture_code = k.prefecture_code
         AND cur.visit_count = 0`.execute(trx);
  }
  if (runs !== null && stale.length > 0) {
    await sql`DELETE FROM ${sql.table(t.visit_attribute_monthly_rollups)} WHERE tenant_id = ANY(${sql.val(stale)}::uuid[])`.execute(
      trx,
    );
    await sql`
      INSERT INTO ${sql.table(t.visit_attribute_monthly_rollups)} ${columns}
      SELECT s.tenant_id, date_trunc('month', s.acted_date)::date, s.communication_type,
             coalesce(m.facility_type_id, ${noFacilityType}), coalesce(m.prefecture_code::int, ${noPrefecture}),
             count(*)::int, count(*) FILTER (WHERE s.is_doctor_attended)::int, count(*) FILTER (WHERE s.has_next_action)::int
        FROM ${sql.table(t.visit_sources)} s
        LEFT JOIN ref.medical_institutions m ON m.id = s.medical_institution_id
       WHERE s.tenant_id = ANY(${sql.val(stale)}::uuid[])
       GROUP BY 1, 2, 3, 4, 5`.execute(trx);
  }
  if (stale.length > 0)
    await sql`
      INSERT INTO ${sql.table(t.visit_attribute_bases)} AS cur (tenant_id, master_runs)
      SELECT id, ${runs}::int FROM unnest(${sql.val(stale)}::uuid[]) AS id
      ON CONFLICT (tenant_id) DO UPDATE SET master_runs = excluded.master_runs`.execute(trx);
}

/**
 * Sets `has_next_action` of the records' source rows from their links, writing only the rows it changes:
 * an import's new visits have no links yet, and rewriting each of them cost a tenth of its time.
 */
async function refreshNextActions(
  trx: Transaction<unknown>,
  t: Tables,
  refs: readonly { tenantId: string; id: string }[],
): Promise<void> {
  if (refs.length === 0) return;
  await sql`
    UPDATE ${sql.table(t.visit_sources)} AS s SET has_next_action = k.linked
      FROM (SELECT k.tenant_id, k.id,
                   EXISTS (SELECT 1 FROM ${sql.table(t.visit_task_links)} l
                            WHERE l.tenant_id = k.tenant_id AND l.communication_id = k.id) AS linked
              FROM unnest(${sql.val(refs.map((r) => r.tenantId))}::uuid[], ${sql.val(refs.map((r) => r.id))}::uuid[]) AS k(tenant_id, id)) k
     WHERE s.tenant_id = k.tenant_id AND s.communication_id = k.id AND s.has_next_action IS DISTINCT FROM k.linked`.execute(
    trx,
  );
}

interface DayKey {
  tenant_id: string;
  acted_date: string;
  user_id: string;
  communication_type: string;
}
const dayKeyString = (k: DayKey) => `${k.tenant_id}|${k.acted_date}|${k.user_id}|${k.communication_type}`;

/** The rollup keys (day, staff member, type) of the given communications' current source rows. */
async function keysOf(trx: Transaction<unknown>, t: Tables, refs: Ref[]): Promise<DayKey[]> {
  const { rows } = await sql<DayKey>`
    SELECT DISTINCT s.tenant_id, to_char(s.acted_date, 'YYYY-MM-DD') AS acted_date, s.user_id, s.communication_type
      FROM ${sql.table(t.visit_sources)} s
      JOIN unnest(${sql.val(refs.map((r) => r.tenantId))}::uuid[], ${sql.val(refs.map((r) => r.id))}::uuid[])
           AS k(tenant_id, id) ON s.tenant_id = k.tenant_id AND s.communication_id = k.id`.execute(trx);
  return rows;
}

/**
 * Sums the given days again from the sources, then from those days the per-tenant days (all staff) and
 * the months, and the per-tenant months from the per-tenant days. Keys left with no visit lose their row.
 */
async function resumDays(trx: Transaction<unknown>, t: Tables, keys: DayKey[]): Promise<void> {
  if (keys.length === 0) return;
  const k = sql`unnest(${sql.val(keys.map((x) => x.tenant_id))}::uuid[], ${sql.val(keys.map((x) => x.acted_date))}::date[],
                       ${sql.val(keys.map((x) => x.user_id))}::uuid[], ${sql.val(keys.map((x) => x.communication_type))}::text[])
                AS k(tenant_id, acted_date, user_id, communication_type)`;
  const same = (alias: string) =>
    sql.raw(`${alias}.tenant_id = k.tenant_id AND ${alias}.acted_date = k.acted_date AND ${alias}.user_id = k.user_id
             AND ${alias}.communication_type = k.communication_type`);
  await sql`DELETE FROM ${sql.table(t.visit_daily_rollups)} AS cur USING ${k} WHERE ${same('cur')}`.execute(trx);
  const tenantDays = new Map<string, DayKey>();
  for (const x of keys) {
    const d = { ...x, user_id: '' };
    tenantDays.set(dayKeyString(d), d);
  }
  await sql`
    INSERT INTO ${sql.table(t.visit_daily_rollups)}
           (tenant_id, acted_date, user_id, communication_type, visit_count, doctor_interview_count, next_action_count)
    SELECT s.tenant_id, s.acted_date, s.user_id, s.communication_type, count(*)::int,
           count(*) FILTER (WHERE s.is_doctor_attended)::int,
           count(*) FILTER (WHERE s.has_next_action)::int
      FROM (SELECT DISTINCT * FROM ${k}) k
      JOIN ${sql.table(t.visit_sources)} s ON ${same('s')}
     GROUP BY 1, 2, 3, 4`.execute(trx);

  const days = [...tenantDays.values()];
  const td = sql`unnest(${sql.val(days.map((x) => x.tenant_id))}::uuid[], ${sql.val(days.map((x) => x.acted_date))}::date[],
                        ${sql.val(days.map((x) => x.communication_type))}::text[])
                 AS k(tenant_id, acted_date, communication_type)`;
  const sameDay = (alias: string) =>
    sql.raw(`${alias}.tenant_id = k.tenant_id AND ${alias}.acted_date = k.acted_date
             AND ${alias}.communication_type = k.communication_type`);
  await sql`DELETE FROM ${sql.table(t.visit_tenant_daily_rollups)} AS cur USING ${td} WHERE ${sameDay('cur')}`.execute(
    trx,
  );
  await sql`
    INSERT INTO ${sql.table(t.visit_tenant_daily_rollups)}
           (tenant_id, acted_date, communication_type, visit_count, doctor_interview_count, next_action_count)
    SELECT d.tenant_id, d.acted_date, d.communication_type, sum(d.visit_count)::int,
           sum(d.doctor_interview_count)::int, sum(d.next_action_count)::int
      FROM ${td}
      JOIN ${sql.table(t.visit_daily_rollups)} d ON ${sameDay('d')}
     GROUP BY 1, 2, 3`.execute(trx);

  const months = new Map<string, DayKey>();
  for (const x of keys) {
    const m = { ...x, acted_date: `${x.acted_date.slice(0, 7)}-01` };
    months.set(dayKeyString(m), m);
  }
  const list = [...months.values()];
  const m = sql`unnest(${sql.val(list.map((x) => x.tenant_id))}::uuid[], ${sql.val(list.map((x) => x.acted_date))}::date[],
                       ${sql.val(list.map((x) => x.user_id))}::uuid[], ${sql.val(list.map((x) => x.communication_type))}::text[])
                AS m(tenant_id, month, user_id, communication_type)`;
  await sql`
    DELETE FROM ${sql.table(t.visit_monthly_rollups)} AS cur USING ${m}
     WHERE cur.tenant_id = m.tenant_id AND cur.month = m.month AND cur.user_id = m.user_id
       AND cur.communication_type = m.communication_type`.execute(trx);
  await sql`
    INSERT INTO ${sql.table(t.visit_monthly_rollups)}
           (tenant_id, month, user_id, communication_type, visit_count, doctor_interview_count, next_action_count)
    SELECT d.tenant_id, m.month, d.user_id, d.communication_type, sum(d.visit_count)::int,
           sum(d.doctor_interview_count)::int, sum(d.next_action_count)::int
      FROM ${m}
      JOIN ${sql.table(t.visit_daily_rollups)} d
        ON d.tenant_id = m.tenant_id AND d.user_id = m.user_id AND d.communication_type = m.communication_type
       AND d.acted_date >= m.month AND d.acted_date < m.month + interval '1 month'
     GROUP BY 1, 2, 3, 4`.execute(trx);

  const tenantMonths = new Map<string, DayKey>();
  for (const x of list) {
    const tm = { ...x, user_id: '' };
    tenantMonths.set(dayKeyString(tm), tm);
  }
  const tl = [...tenantMonths.values()];
  const tm = sql`unnest(${sql.val(tl.map((x) => x.tenant_id))}::uuid[], ${sql.val(tl.map((x) => x.acted_date))}::date[],
                        ${sql.val(tl.map((x) => x.communication_type))}::text[])
                 AS m(tenant_id, month, communication_type)`;
  await sql`
    DELETE FROM ${sql.table(t.visit_tenant_monthly_rollups)} AS cur USING ${tm}
     WHERE cur.tenant_id = m.tenant_id AND cur.month = m.month AND cur.communication_type = m.communication_type`.execute(
    trx,
  );
  await sql`
    INSERT INTO ${sql.table(t.visit_tenant_monthly_rollups)}
           (tenant_id, month, communication_type, visit_count, doctor_interview_count, next_action_count)
    SELECT d.tenant_id, m.month, d.communication_type, sum(d.visit_count)::int,
           sum(d.doctor_interview_count)::int, sum(d.next_action_count)::int
      FROM ${tm}
      JOIN ${sql.table(t.visit_tenant_daily_rollups)} d
        ON d.tenant_id = m.tenant_id AND d.communication_type = m.communication_type
       AND d.acted_date >= m.month AND d.acted_date < m.month + interval '1 month'
     GROUP BY 1, 2, 3`.execute(trx);
}

/**
 * Sums every rollup key of one tenant again from its `visit_sources` (with the same statement as a
 * batch): for benches and repairs that write the sources and links in bulk.
 */
export async function rebuildTenantVisitRollups(trx: Transaction<unknown>, t: Tables, tenantId: string): Promise<void> {
  await sql`
    UPDATE ${sql.table(t.visit_sources)} AS s
       SET has_next_action = EXISTS (SELECT 1 FROM ${sql.table(t.visit_task_links)} l
                                      WHERE l.tenant_id = s.tenant_id AND l.communication_id = s.communication_id)
     WHERE s.tenant_id = ${tenantId}`.execute(trx);
  const { rows } = await sql<DayKey>`
    SELECT DISTINCT tenant_id, to_char(acted_date, 'YYYY-MM-DD') AS acted_date, user_id, communication_type
      FROM ${sql.table(t.visit_sources)} WHERE tenant_id = ${tenantId}`.execute(trx);
  await resumDays(trx, t, rows);
  // Without a basis the tenant counts as stale: every month is summed against the master as it is.
  await sql`DELETE FROM ${sql.table(t.visit_attribute_bases)} WHERE tenant_id = ${tenantId}`.execute(trx);
  await attributesAfter(trx, t, [{ tenantId, id: tenantId }], await attributesBefore(trx, t, []));
}
