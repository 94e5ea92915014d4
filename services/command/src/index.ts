import path from 'node:path';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { buildOpenApiDocument } from '@renkei/contracts';
import { migrateModule, type Database } from '@renkei/db';
import type { EventStore } from '@renkei/event-store';
import { createServiceApp, type AuthOptions, type ServiceAppOptions } from '@renkei/service-kit';
import { commandMigrations } from './shared/command.migrations.ts';
import { createTenantLimitsCache } from './shared/tenant-limits.ts';
import { registerTagRoutes } from './tags/tag.routes.ts';
import { registerEmailRoutes } from './emails/email.routes.ts';
import { registerEmailTrackingRoutes } from './emails/email-tracking.routes.ts';
import { registerInstitutionCommandRoutes } from './medical-institutions/index.ts';
import { registerDataUploadRoutes } from './data-uploads/data-upload.routes.ts';
import { registerInstitutionMatchRoutes } from './data-uploads/institution-match.routes.ts';
import { registerReferralEntryRoutes } from './referrals/referral-entry.routes.ts';
import { registerReferralSettingsRoutes } from './referral-settings/referral-settings.routes.ts';
import { registerCommunicationRoutes } from './communications/communication.routes.ts';
import { registerCommunicationLabelRoutes } from './communications/communication-label.routes.ts';
import { registerCommunicationImportRoutes } from './imports/communication-import.routes.ts';
import { registerTaskRoutes } from './tasks/task.routes.ts';
import { registerVocRoutes } from './vocs/voc.routes.ts';
import { registerActionListRoutes } from './action-lists/action-list.routes.ts';
import { registerAlertRoutes } from './alerts/alert.routes.ts';
import { registerReportDefinitionRoutes } from './reports/report-definition.routes.ts';
import { registerDashboardRoutes } from './dashboards/dashboard.routes.ts';
import { createPostgresFileStorage, fileUrlKey, type FileStorage } from '@renkei/file-storage';
import { registerUploadedFileRoutes } from './uploaded-files/uploaded-file.routes.ts';

export interface CommandAppDeps {
  db: Database;
  store: EventStore;
  auth: AuthOptions;
  logger?: boolean | FastifyBaseLogger;
  rateLimit?: ServiceAppOptions['rateLimit'];
  underPressure?: ServiceAppOptions['underPressure'];
  /** Key of campaign mails' tracking tokens (tests); default from the environment. */
  emailTrackingKey?: Buffer;
  /** The journal of answered tracking hits (email-tracking.routes.ts); null for none (tests). */
  emailTrackingJournalDir?: string | null;
  /** Where uploaded files are kept (default: the database's `files` schema). */
  fileStorage?: FileStorage;
  /** Key of signed file links (tests); default RENKEI_FILE_URL_SECRET or the key kept in RENKEI_DATA_DIR. */
  fileUrlKey?: Buffer;
  /** Largest uploaded file (tests); default 10 MB. */
  maxUploadedFileBytes?: number;
  /**
   * The public https origin of a campaign mail's uploaded images (default PUBLIC_ORIGIN): the embedded
   * process passes its own, which may come from PORT alone.
   */
  publicOrigin?: string;
}

export { commandMigrations };

/** The command service: every write of the spec, appended to the event store. */
export async function buildCommandApp(deps: CommandAppDeps): Promise<FastifyInstance> {
  await migrateModule(deps.db.kysely, 'command', commandMigrations);
  const app = await createServiceApp({
    name: 'command',
    audience: 'command',
    auth: deps.auth,
    accountEvents: deps.store,
    logger: deps.logger,
    rateLimit: deps.rateLimit,
    underPressure: deps.underPressure,
    openapi: buildOpenApiDocument({ service: 'command' }),
    readinessChecks: {
      database: () => sql`SELECT 1`.execute(deps.db.kysely),
    },
  });
  const tenantLimits = await createTenantLimitsCache(deps.store, {
    onError: (error) => app.log.error({ err: error }, 'tenant limits follower failed; retrying'),
  });
  app.addHook('onClose', () => tenantLimits.close());
  registerTagRoutes(app, { db: deps.db, store: deps.store, tenantLimits });
  await registerInstitutionCommandRoutes(app, { db: deps.db, store: deps.store });
  await registerEmailRoutes(app, {
    db: deps.db,
    store: deps.store,
    ...(deps.publicOrigin ? { publicOrigin: deps.publicOrigin } : {}),
  });
  registerEmailTrackingRoutes(app, {
    store: deps.store,
    trackingKey: deps.emailTrackingKey,
    ...(deps.emailTrackingJournalDir !== undefined ? { journalDir: deps.emailTrackingJournalDir } : {}),
  });
  await registerDataUploadRoutes(app, { db: deps.db, store: deps.store });
  registerInstitutionMatchRoutes(app, { db: deps.db, store: deps.store });
  registerReferralEntryRoutes(app, { db: deps.db, store: deps.store });
  const fileStorage = deps.fileStorage ?? createPostgresFileStorage(deps.db);
  await fileStorage.migrate();
  let urlKey = deps.fileUrlKey ?? null;
  const fileKey = () => (urlKey ??= fileUrlKey());
  registerCommunicationRoutes(app, { db: deps.db, store: deps.store, storage: fileStorage, fileUrlKey: fileKey });
  registerReferralSettingsRoutes(app, { store: deps.store });
  registerCommunicationLabelRoutes(app, { db: deps.db, store: deps.store });
  await registerCommunicationImportRoutes(app, {
    db: deps.db,
    store: deps.store,
    importsDir: path.join(process.env.RENKEI_DATA_DIR ?? path.resolve('.data'), 'imports'),
  });
  registerTaskRoutes(app, { db: deps.db, store: deps.store });
  registerVocRoutes(app, { db: deps.db, store: deps.store });
  registerActionListRoutes(app, { db: deps.db, store: deps.store });
  registerAlertRoutes(app, { db: deps.db, store: deps.store });
  registerReportDefinitionRoutes(app, { db: deps.db, store: deps.store });
  registerDashboardRoutes(app, { db: deps.db, store: deps.store });
  await registerUploadedFileRoutes(app, {
    db: deps.db,
    storage: fileStorage,
    fileUrlKey: deps.fileUrlKey,
    maxFileBytes: deps.maxUploadedFileBytes,
  });
  return app;
}
