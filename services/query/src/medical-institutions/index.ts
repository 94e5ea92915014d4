import type { FastifyInstance } from 'fastify';
import type { Database } from '@renkei/db';
import { migrateInstitutionMaster } from '@renkei/institution-master';
import { registerDoctorQueryRoutes } from '../doctors/doctors.routes.ts';
import { registerHistoryRoutes } from '../histories/histories.routes.ts';
import { registerLabelQueryRoutes } from '../labels/labels.routes.ts';
import { registerLabelValueImportQueryRoutes } from '../imports/label-value-imports.routes.ts';
import { registerReferenceDataRoutes } from '../reference-data/reference-data.routes.ts';
import { registerMedicalInstitutionQueryRoutes } from './medical-institutions.routes.ts';
import { registerSalesMapQueryRoutes } from './sales-map.routes.ts';

export { medicalInstitutionCrmProjection } from '@renkei/read-models';

/** Every read about institutions: search, CSV export, CRM data, doctors, labels, history, reference data. */
export async function registerInstitutionQueryRoutes(app: FastifyInstance, deps: { db: Database }): Promise<void> {
  await migrateInstitutionMaster(deps.db);
  registerMedicalInstitutionQueryRoutes(app, deps);
  registerSalesMapQueryRoutes(app, deps);
  registerDoctorQueryRoutes(app, deps);
  registerHistoryRoutes(app, deps);
  registerLabelQueryRoutes(app, deps);
  registerReferenceDataRoutes(app, deps);
  registerLabelValueImportQueryRoutes(app, deps);
}
