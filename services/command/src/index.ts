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
import { registerTaskRoutes } from './tasks/task.routes.ts';
import { registerVocRoutes } from './vocs/voc.routes.ts';

export interface CommandAppDeps {
  db: Database;
  store: EventStore;
  auth: AuthOptions;
  logger?: boolean | FastifyBaseLogger;
  rateLimit?: ServiceAppOptions['rateLimit'];
  underPressure?: ServiceAppOptions['underPressure'];
  /** Key of campaign mails' tracking tokens (tests); default from the environment. */
  emailTrackingKey?: Buffer;
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
  await registerEmailRoutes(app, { db: deps.db, store: deps.store });
  registerEmailTrackingRoutes(app, { store: deps.store, trackingKey: deps.emailTrackingKey });
  await registerDataUploadRoutes(app, { store: deps.store });
  registerInstitutionMatchRoutes(app, { db: deps.db, store: deps.store });
  registerReferralEntryRoutes(app, { db: deps.db, store: deps.store });
  registerReferralSettingsRoutes(app, { store: deps.store });
  registerCommunicationRoutes(app, { db: deps.db, store: deps.store });
  registerCommunicationLabelRoutes(app, { db: deps.db, store: deps.store });
  registerTaskRoutes(app, { db: deps.db, store: deps.store });
  registerVocRoutes(app, { db: deps.db, store: deps.store });
  return app;
}
