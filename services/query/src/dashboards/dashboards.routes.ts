import type { FastifyInstance } from 'fastify';
import { HttpError, endpoints } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { registerEndpoint } from '@renkei/service-kit';
import { dashboardsProjection, medicalInstitutionCrmProjection, type ReadModels } from '@renkei/read-models';
import { getDashboard, listDashboards } from './dashboards.queries.ts';

export function registerDashboardQueryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  const db = () => deps.db.typed<ReadModels>();
  // Creators' names come from the CRM projection's accounts.
  const reads = [dashboardsProjection.name, medicalInstitutionCrmProjection.name];

  registerEndpoint(
    app,
    endpoints.listDashboards,
    async ({ query, auth }) => listDashboards(db(), auth.tenantId, query),
    {
      reads,
    },
  );

  registerEndpoint(
    app,
    endpoints.getDashboard,
    async ({ params, auth, reply }) => {
      const dashboard = await getDashboard(db(), auth.tenantId, params.id);
      if (!dashboard) throw new HttpError(404);
      void reply.header('etag', `"${dashboard.version}"`);
      return dashboard;
    },
    { reads },
  );
}
