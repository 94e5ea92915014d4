import type { FastifyInstance } from 'fastify';
import { HttpError, endpoints } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { registerEndpoint } from '@renkei/service-kit';
import {
  alertsProjection,
  medicalInstitutionCrmProjection,
  tagsProjection,
  type ReadModels,
} from '@renkei/read-models';
import { getAlert, listAlertConditions, listAlertInstitutions, listAlerts } from './alerts.queries.ts';

export function registerAlertQueryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  const db = () => deps.db.typed<ReadModels>();
  const reads = [alertsProjection.name];

  registerEndpoint(app, endpoints.listAlerts, async ({ query, auth }) => listAlerts(db(), auth.tenantId, query), {
    reads,
  });

  registerEndpoint(
    app,
    endpoints.getAlert,
    async ({ params, auth }) => {
      const alert = await getAlert(db(), auth.tenantId, params.id);
      if (!alert) throw new HttpError(404);
      return alert;
    },
    { reads },
  );

  registerEndpoint(
    app,
    endpoints.listAlertMedicalInstitutions,
    async ({ params, query, auth }) => {
      const page = await listAlertInstitutions(db(), auth.tenantId, params.id, query);
      if (!page) throw new HttpError(404);
      return page;
    },
    { reads },
  );

  // `has_invalid` reads the tenant's tags and area labels beside the conditions.
  registerEndpoint(
    app,
    endpoints.listAlertConditions,
    async ({ query, auth }) => listAlertConditions(db(), auth.tenantId, query),
    { reads: [alertsProjection.name, tagsProjection.name, medicalInstitutionCrmProjection.name] },
  );
}
