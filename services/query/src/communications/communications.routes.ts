import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { HttpError, endpoints } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { registerEndpoint } from '@renkei/service-kit';
import {
  communicationsProjection,
  emailsProjection,
  medicalInstitutionCrmProjection,
  tasksProjection,
  vocsProjection,
  type ReadModels,
} from '@renkei/read-models';
import { exportCommunications } from './communications.export.ts';
import {
  communicationLabelOrderVersion,
  getCommunication,
  listCommunicationLabels,
  searchCommunications,
} from './communications.queries.ts';
import { withAttachments, type UploadedFileQueryDeps } from '../uploaded-files/uploaded-files.routes.ts';

export function registerCommunicationQueryRoutes(
  app: FastifyInstance,
  deps: { db: Database; files: UploadedFileQueryDeps },
): void {
  const db = () => deps.db.typed<ReadModels>();
  // Names of staff come from the CRM projection's accounts, tasks from their own projection.
  const reads = [
    communicationsProjection.name,
    tasksProjection.name,
    medicalInstitutionCrmProjection.name,
    vocsProjection.name,
    // A record left by a campaign names it (its `email`).
    emailsProjection.name,
  ];

  registerEndpoint(
    app,
    endpoints.searchCommunications,
    async ({ body, auth }) => {
      const page = await searchCommunications(db(), auth.tenantId, body);
      return { ...page, data: await withAttachments(deps.files, auth.tenantId, page.data) };
    },
    { reads },
  );

  registerEndpoint(
    app,
    endpoints.exportCommunications,
    async ({ body, auth, reply }) => {
      void reply
        .header('content-type', `text/csv; charset=${body.encoding === 'shift_jis' ? 'Shift_JIS' : 'UTF-8'}`)
        .header('content-disposition', 'attachment; filename="communications.csv"');
      // A stream is sent as it is produced (no serialisation of the whole body).
      return exportCommunications(db(), auth.tenantId, body) as unknown as string;
    },
    { reads },
  );

  registerEndpoint(
    app,
    endpoints.searchForMedicalInstitution,
    async ({ params, body, auth }) => {
      const { rows } = await sql`SELECT 1 FROM ref.medical_institutions WHERE id = ${params.id}`.execute(db());
      if (rows.length === 0) throw new HttpError(404);
      const page = await searchCommunications(db(), auth.tenantId, { ...body, medical_institution_id: params.id });
      return { ...page, data: await withAttachments(deps.files, auth.tenantId, page.data) };
    },
    { reads },
  );

  registerEndpoint(
    app,
    endpoints.getCommunication,
    async ({ params, auth }) => {
      const found = await getCommunication(db(), auth.tenantId, params.id);
      if (!found) throw new HttpError(404);
      return (await withAttachments(deps.files, auth.tenantId, [found]))[0]!;
    },
    { reads },
  );

  registerEndpoint(
    app,
    endpoints.listCommunicationLabels,
    async ({ query, auth, reply }) => {
      const [labels, orderVersion] = await Promise.all([
        listCommunicationLabels(db(), auth.tenantId, query.communication_type),
        communicationLabelOrderVersion(db(), auth.tenantId),
      ]);
      // The order's number of saves: what PUT /communication_labels/orders takes as If-Match.
      void reply.header('etag', `"${orderVersion}"`);
      return labels;
    },
    { reads: [communicationsProjection.name] },
  );
}
