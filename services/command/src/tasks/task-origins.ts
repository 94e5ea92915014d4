import { sql } from 'kysely';
import type { Database } from '@renkei/db';

/** Records that these tasks are born in the communication's stream (`cmd.communication_tasks`). */
export async function recordTaskOrigins(
  db: Database,
  tenantId: string,
  communicationId: string,
  taskIds: readonly string[],
): Promise<void> {
  if (taskIds.length === 0) return;
  await sql`
    INSERT INTO cmd.communication_tasks (tenant_id, task_id, communication_id)
    SELECT ${tenantId}, id, ${communicationId} FROM unnest(${sql.val(taskIds)}::uuid[]) AS t(id)
    ON CONFLICT DO NOTHING`.execute(db.kysely);
}

/** The communication a task was entered with, if any. */
export async function taskOrigin(db: Database, tenantId: string, taskId: string): Promise<string | null> {
  const { rows } = await sql<{ communication_id: string }>`
    SELECT communication_id FROM cmd.communication_tasks WHERE tenant_id = ${tenantId} AND task_id = ${taskId}`.execute(
    db.kysely,
  );
  return rows[0]?.communication_id ?? null;
}
