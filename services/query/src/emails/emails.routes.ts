import type { FastifyInstance } from 'fastify';
import { endpoints } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { registerEndpoint } from '@renkei/service-kit';
import { emailsProjection, medicalInstitutionCrmProjection, type ReadModels } from '@renkei/read-models';
import { getEmail, getEmailStats, listEmailReports, listEmails } from './emails.queries.ts';

export function registerEmailQueryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  // The creator's name comes from the institutions' projection (`mi_accounts`).
  const reads = [emailsProjection.name, medicalInstitutionCrmProjection.name];
  const db = () => deps.db.typed<ReadModels>();
  registerEndpoint(app, endpoints.listEmails, async ({ query, auth }) => listEmails(db(), auth.tenantId, query), {
    reads,
  });
  registerEndpoint(app, endpoints.getEmail, async ({ params, auth }) => getEmail(db(), auth.tenantId, params.id), {
    reads,
  });
  registerEndpoint(
    app,
    endpoints.getEmailStats,
    async ({ params, auth }) => getEmailStats(db(), auth.tenantId, params.id),
    { reads },
  );
  registerEndpoint(
    app,
    endpoints.listEmailReports,
    async ({ params, query, auth }) => listEmailReports(db(), auth.tenantId, params.id, query),
    { reads },
  );
}
