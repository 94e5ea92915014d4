import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { buildOpenApiDocument } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { createEventStore, type EventStore } from '@renkei/event-store';
import { waitForPosition } from '@renkei/projections';
import { createServiceApp, type AuthOptions, type ServiceAppOptions, type WaitForPosition } from '@renkei/service-kit';
import { registerTagQueryRoutes } from './tags/tags.routes.ts';
import { registerEmailQueryRoutes } from './emails/emails.routes.ts';
import { registerInstitutionQueryRoutes } from './medical-institutions/index.ts';
import { registerReferralQueryRoutes } from './referrals/referrals.routes.ts';
import { registerSegmentQueryRoutes } from './segments/segments.routes.ts';
import { registerDataUploadQueryRoutes } from './data-uploads/data-uploads.routes.ts';
import { registerCommunicationQueryRoutes } from './communications/communications.routes.ts';
import { registerCommunicationImportQueryRoutes } from './imports/communication-imports.routes.ts';
import { createPostgresFileStorage, fileUrlKey, type FileStorage } from '@renkei/file-storage';
import { registerUploadedFileQueryRoutes } from './uploaded-files/uploaded-files.routes.ts';
import { registerTaskQueryRoutes } from './tasks/tasks.routes.ts';
import { registerDataSyncStatusRoutes } from './data-sync-statuses/data-sync-statuses.routes.ts';
import { registerVocQueryRoutes } from './vocs/vocs.routes.ts';
import { registerActionListQueryRoutes } from './action-lists/action-lists.routes.ts';
import { registerAlertQueryRoutes } from './alerts/alerts.routes.ts';
import { registerChartQueryRoutes } from './charts/charts.routes.ts';
import { registerVisitChartQueryRoutes } from './charts/visit-charts.routes.ts';
import { registerDataAnalysisQueryRoutes } from './data-analysis/data-analysis.routes.ts';
import { registerSegmentMapQueryRoutes } from './data-analysis/segment-map.routes.ts';
import { registerReferralReportQueryRoutes } from './referral-reports/referral-report.routes.ts';
import { registerReportDefinitionQueryRoutes } from './reports/report-definitions.routes.ts';
import { registerDashboardQueryRoutes } from './dashboards/dashboards.routes.ts';
import { registerReportResultQueryRoutes } from './reports/report-results.routes.ts';

export { queryProjections } from './projections.ts';
export { tagsProjection } from '@renkei/read-models';
export { medicalInstitutionCrmProjection } from './medical-institutions/index.ts';

export interface QueryAppDeps {
  db: Database;
  /**
   * Read only: where identity publishes account changes (the app refuses tokens of deleted accounts),
   * and what the read models' lag on /data_sync_statuses is measured against. Defaults to the Postgres
   * event store in `db` (closed with the app); the standalone service passes EventStoreDB when configured.
   */
  store?: EventStore;
  auth: AuthOptions;
  logger?: boolean | FastifyBaseLogger;
  rateLimit?: ServiceAppOptions['rateLimit'];
  underPressure?: ServiceAppOptions['underPressure'];
  /** Defaults to polling the projections' checkpoints in `db`. */
  waitForPosition?: WaitForPosition;
  minPositionTimeoutMs?: number;
  /** Where uploaded files are kept (default: the database's `files` schema). */
  fileStorage?: FileStorage;
  /** Key of signed file links (tests); default RENKEI_FILE_URL_SECRET or the key kept in RENKEI_DATA_DIR. */
  fileUrlKey?: Buffer;
}

/** The query service: every read of the spec, from the read models the worker keeps. */
export async function buildQueryApp(deps: QueryAppDeps): Promise<FastifyInstance> {
  const ownStore = deps.store ? null : await createEventStore({ db: deps.db });
  const store = deps.store ?? ownStore!;
  const app = await createServiceApp({
    name: 'query',
    audience: 'query',
    auth: deps.auth,
    accountEvents: store,
    logger: deps.logger,
    rateLimit: deps.rateLimit,
    underPressure: deps.underPressure,
    openapi: buildOpenApiDocument({ service: 'query' }),
    waitForPosition:
      deps.waitForPosition ?? ((names, position, timeoutMs) => waitForPosition(deps.db, names, position, timeoutMs)),
    minPositionTimeoutMs: deps.minPositionTimeoutMs,
    readinessChecks: {
      database: () => sql`SELECT 1`.execute(deps.db.kysely),
    },
  });
  registerTagQueryRoutes(app, { db: deps.db });
  await registerInstitutionQueryRoutes(app, { db: deps.db });
  registerReferralQueryRoutes(app, { db: deps.db });
  registerSegmentQueryRoutes(app, { db: deps.db });
  registerDataUploadQueryRoutes(app, { db: deps.db });
  registerCommunicationImportQueryRoutes(app, { db: deps.db });
  let urlKey = deps.fileUrlKey ?? null;
  const files = {
    storage: deps.fileStorage ?? createPostgresFileStorage(deps.db),
    fileUrlKey: () => (urlKey ??= fileUrlKey()),
  };
  registerCommunicationQueryRoutes(app, { db: deps.db, files });
  registerEmailQueryRoutes(app, { db: deps.db, files });
  registerUploadedFileQueryRoutes(app, files);
  registerTaskQueryRoutes(app, { db: deps.db });
  app.addHook('onClose', async () => {
    await ownStore?.close();
  });
  registerDataSyncStatusRoutes(app, { db: deps.db, store });
  registerVocQueryRoutes(app, { db: deps.db });
  registerActionListQueryRoutes(app, { db: deps.db });
  registerAlertQueryRoutes(app, { db: deps.db });
  registerChartQueryRoutes(app, { db: deps.db });
  registerVisitChartQueryRoutes(app, { db: deps.db });
  registerDataAnalysisQueryRoutes(app, { db: deps.db });
  registerSegmentMapQueryRoutes(app, { db: deps.db });
  registerReferralReportQueryRoutes(app, { db: deps.db });
  registerReportDefinitionQueryRoutes(app, { db: deps.db });
  registerDashboardQueryRoutes(app, { db: deps.db });
  registerReportResultQueryRoutes(app, { db: deps.db });
  return app;
}
