import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { DataUploadType, endpoints, type DataSyncStatuses } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import type { EventStore } from '@renkei/event-store';
import { projectionStatus } from '@renkei/projections';
import type { ReadModels } from '@renkei/read-models';
import { registerEndpoint } from '@renkei/service-kit';

type ImportType = DataSyncStatuses['imports'][number]['import_type'];
type ProjectionRow = DataSyncStatuses['projections'][number];

/** Seconds behind after which a read model counts as delayed (one import chunk commits well within it). */
const delayedAfterSeconds = 5;

const importTypes: readonly ImportType[] = [
  ...DataUploadType.options,
  'label_values',
  'communication',
  'communication_update',
];

interface LastImport {
  import_type: ImportType;
  id: string;
  filename: string;
  status: 'waiting' | 'processing' | 'completed' | 'failed';
  created_at: Date;
  imported_row_count: number;
  failed_row_count: number;
  last_completed_at: Date | null;
}

/**
 * `/data_sync_statuses` (issue 12 §6): each import type's last import, the institution master's last
 * sync and each read model's state, what an operator sees with `pnpm ops projections status`, cut to
 * what a tenant may see: another tenant's parked events and error texts stay out.
 */
export function registerDataSyncStatusRoutes(app: FastifyInstance, deps: { db: Database; store: EventStore }): void {
  registerEndpoint(app, endpoints.dataSyncStatuses, async ({ auth }) => {
    const db = deps.db.typed<ReadModels>();
    const [imports, master, projections] = await Promise.all([
      sql<LastImport>`
        WITH uploads AS (
          SELECT import_type, id, filename, status, created_at, imported_row_count, failed_row_count
            FROM rm.referral_data_imports WHERE tenant_id = ${auth.tenantId} AND withdrawal_requested_at IS NULL
          UNION ALL
          SELECT 'label_values', id, filename, status, created_at, imported_row_count, failed_row_count
            FROM rm.label_value_imports WHERE tenant_id = ${auth.tenantId}
          UNION ALL
          SELECT import_type, id, filename, status, created_at, imported_row_count, failed_row_count
            FROM rm.communication_imports WHERE tenant_id = ${auth.tenantId}
        )
        SELECT DISTINCT ON (import_type) *,
               max(created_at) FILTER (WHERE status = 'completed') OVER (PARTITION BY import_type) AS last_completed_at
          FROM uploads
         ORDER BY import_type, created_at DESC, id DESC`.execute(db),
      sql<{
        status: 'running' | 'completed' | 'failed';
        started_at: Date;
        finished_at: Date | null;
        total_rows: number;
        inserted_count: number;
        updated_count: number;
        closed_count: number;
        failed_count: number;
      }>`
        SELECT status, started_at, finished_at, total_rows, inserted_count, updated_count, closed_count, failed_count
          FROM ref.sync_runs WHERE kind = 'medical_institutions'
         ORDER BY started_at DESC LIMIT 1`.execute(db),
      readModelStates(deps, auth.tenantId),
    ]);
    const byType = new Map(imports.rows.map((r) => [r.import_type, r]));
    const m = master.rows[0];
    return {
      imports: importTypes.map((import_type) => {
        const r = byType.get(import_type);
        return {
          import_type,
          last: r
            ? {
                id: r.id,
                filename: r.filename,
                status: r.status,
                created_at: new Date(r.created_at).toISOString(),
                imported_row_count: r.imported_row_count,
                failed_row_count: r.failed_row_count,
              }
            : null,
          last_completed_at: r?.last_completed_at ? new Date(r.last_completed_at).toISOString() : null,
        };
      }),
      institution_master: m
        ? {
            ...m,
            started_at: new Date(m.started_at).toISOString(),
            finished_at: m.finished_at ? new Date(m.finished_at).toISOString() : null,
          }
        : null,
      projections,
      checked_at: new Date().toISOString(),
    };
  });
}

async function readModelStates(deps: { db: Database; store: EventStore }, tenantId: string): Promise<ProjectionRow[]> {
  const builds = await projectionStatus(deps.db, deps.store);
  const names = [...new Set(builds.map((b) => b.name))];
  return names.map((name) => {
    const live = builds.find((b) => b.name === name && b.state === 'live');
    const rebuilding = builds.some((b) => b.name === name && b.state === 'rebuilding');
    const shown = live ?? builds.find((b) => b.name === name)!;
    const parked = shown.parked_tenants.some((p) => p.tenant_id === tenantId);
    const lagSeconds = Math.round(shown.lag_ms / 100) / 10;
    return {
      name,
      status: parked
        ? 'stopped'
        : !live
          ? 'rebuilding'
          : lagSeconds > delayedAfterSeconds
            ? 'delayed'
            : rebuilding
              ? 'rebuilding'
              : 'ok',
      lag_events: shown.lag_events,
      lag_seconds: lagSeconds,
      events_per_second: Math.round(shown.rate_events_per_s),
      updated_at: shown.updated_at.toISOString(),
    };
  });
}
