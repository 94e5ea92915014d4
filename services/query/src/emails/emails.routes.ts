import type { FastifyInstance } from 'fastify';
import { endpoints } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { registerEndpoint } from '@renkei/service-kit';
import { emailsProjection, medicalInstitutionCrmProjection, type ReadModels } from '@renkei/read-models';
import {
  exportEmailReports,
  getEmail,
  getEmailStats,
  getEmailTimeline,
  listEmailReports,
  listEmails,
  type EmailFiles,
} from './emails.queries.ts';

export function registerEmailQueryRoutes(app: FastifyInstance, deps: { db: Database; files: EmailFiles }): void {
  // The creator's name comes from the institutions' projection (`mi_accounts`).
  const reads = [emailsProjection.name, medicalInstitutionCrmProjection.name];
  const db = () => deps.db.typed<ReadModels>();
  registerEndpoint(
    app,
    endpoints.listEmails,
    async ({ query, auth }) => listEmails(db(), deps.files, auth.tenantId, query),
    {
      reads,
    },
  );
  registerEndpoint(
    app,
    endpoints.getEmail,
    async ({ params, auth }) => getEmail(db(), deps.files, auth.tenantId, params.id),
    {
      reads,
    },
  );
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
  registerEndpoint(
    app,
    endpoints.exportEmailReports,
    async ({ params, query, auth, reply }) => {
      const csv = await exportEmailReports(db(), auth.tenantId, params.id, query);
      void reply
        .header('content-type', `text/csv; charset=${query.encoding === 'shift_jis' ? 'Shift_JIS' : 'UTF-8'}`)
        .header('content-disposition', `attachment; filename="email-${params.id}-report.csv"`);
      // A stream is sent as it is produced (no serialisation of the whole body).
      return csv as unknown as string;
    },
    { reads },
  );
  registerEndpoint(
    app,
    endpoints.getEmailTimeline,
    async ({ params, auth }) => getEmailTimeline(db(), auth.tenantId, params.id),
    { reads },
  );
}
