import type { FastifyInstance } from 'fastify';
import { HttpError, endpoints, reportKinds, type ReportKind } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { registerEndpoint } from '@renkei/service-kit';
import { medicalInstitutionCrmProjection, reportDefinitionsProjection, type ReadModels } from '@renkei/read-models';
import { getReportAlertSettings, getReportDefinition, listReportDefinitions } from './report-definitions.queries.ts';

/** The read endpoints of one kind (the four kinds' entries share one shape). */
const kindEndpoints = {
  area_reports: { list: endpoints.areaReportsListDefinitions, get: endpoints.areaReportsGetDefinition },
  communication_reports: {
    list: endpoints.communicationReportsListDefinitions,
    get: endpoints.communicationReportsGetDefinition,
  },
  medical_institution_reports: {
    list: endpoints.medicalInstitutionReportsListDefinitions,
    get: endpoints.medicalInstitutionReportsGetDefinition,
  },
  own_department_reports: {
    list: endpoints.ownDepartmentReportsListDefinitions,
    get: endpoints.ownDepartmentReportsGetDefinition,
  },
} satisfies Record<ReportKind, unknown>;

export function registerReportDefinitionQueryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  const db = () => deps.db.typed<ReadModels>();
  // Creators' names come from the CRM projection's accounts.
  const reads = [reportDefinitionsProjection.name, medicalInstitutionCrmProjection.name];

  for (const kind of reportKinds) {
    const e = kindEndpoints[kind];
    registerEndpoint(app, e.list, async ({ query, auth }) => listReportDefinitions(db(), auth.tenantId, kind, query), {
      reads,
    });
    registerEndpoint(
      app,
      e.get,
      async ({ params, auth, reply }) => {
        const definition = await getReportDefinition(db(), auth.tenantId, kind, params.id);
        if (!definition) throw new HttpError(404);
        void reply.header('etag', `"${definition.version}"`);
        return definition;
      },
      { reads },
    );
  }

  registerEndpoint(
    app,
    endpoints.medicalInstitutionReportsGetAlertSettings,
    async ({ params, auth, reply }) => {
      const found = await getReportAlertSettings(db(), auth.tenantId, params.id);
      if (!found) throw new HttpError(404);
      void reply.header('etag', `"${found.version}"`);
      return found.settings;
    },
    { reads: [reportDefinitionsProjection.name] },
  );
}
