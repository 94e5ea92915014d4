import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Database } from '@renkei/db';
import type { EventStore } from '@renkei/event-store';
import { migrateInstitutionMaster } from '@renkei/institution-master';
import { registerDoctorRoutes } from '../doctors/doctor.routes.ts';
import { registerLabelRoutes } from '../labels/label.routes.ts';
import { registerLabelValueImportRoutes } from '../imports/label-value-import.routes.ts';
import { registerPhaseMasterRoutes } from '../phases/phase-master.routes.ts';
import { registerMedicalInstitutionRoutes } from './medical-institution.routes.ts';

/** Every write about institutions: CRM data, doctors, labels, phase masters, own departments. */
export async function registerInstitutionCommandRoutes(
  app: FastifyInstance,
  deps: { db: Database; store: EventStore; importsDir?: string | undefined },
) {
  // Commands check institution ids against the shared master.
  await migrateInstitutionMaster(deps.db);
  registerMedicalInstitutionRoutes(app, deps);
  registerDoctorRoutes(app, deps);
  registerLabelRoutes(app, deps);
  registerPhaseMasterRoutes(app, deps);
  await registerLabelValueImportRoutes(app, {
    db: deps.db,
    store: deps.store,
    importsDir: deps.importsDir ?? path.join(process.env.RENKEI_DATA_DIR ?? path.resolve('.data'), 'imports'),
  });
}
