import type { FastifyInstance } from 'fastify';
import { endpoints } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { medicalInstitutionCrmProjection, visitRollupsProjection, type ReadModels } from '@renkei/read-models';
import { registerEndpoint } from '@renkei/service-kit';
import { doctorInterviewRatesChart, nextActionRatesChart, visitsChart } from './visit-charts.queries.ts';

/** The visit charts of spec §7 (issue 11), read from the visit rollups. */
export function registerVisitChartQueryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  const db = deps.db.typed<ReadModels>();
  // Tags filter through the CRM read model.
  const reads = { reads: [visitRollupsProjection.name, medicalInstitutionCrmProjection.name] };
  registerEndpoint(app, endpoints.visits, ({ body, auth }) => visitsChart(db, auth.tenantId, body), reads);
  registerEndpoint(
    app,
    endpoints.visitsDoctorInterviewRates,
    ({ body, auth }) => doctorInterviewRatesChart(db, auth.tenantId, body),
    reads,
  );
  registerEndpoint(
    app,
    endpoints.visitsNextActionRates,
    ({ body, auth }) => nextActionRatesChart(db, auth.tenantId, body),
    reads,
  );
}
