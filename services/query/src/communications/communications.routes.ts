import type { FastifyInstance } from 'fastify';
import { HttpError, endpoints } from '@renkei/contracts';
import { preparedStatement, type Database } from '@renkei/db';
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
import { registerInstitutionPickerRoutes } from './institution-picker.routes.ts';
import {
  checkLabelFilters,
  communicationLabelOrderVersion,
  getCommunication,
  listCommunicationLabels,
  searchCommunications,
} from './communications.queries.ts';
import { attachmentsOf, type UploadedFileQueryDeps } from '../uploaded-files/uploaded-files.routes.ts';

export function registerCommunicationQueryRoutes(
  app: FastifyInstance,
  deps: { db: Database; files: UploadedFileQueryDeps },
): void {
  const db = () => deps.db.typed<ReadModels>();
  registerInstitutionPickerRoutes(app, db);
  const institutionExists = preparedStatement(
    deps.db,
    'institution_exists_v1',
    'SELECT 1 FROM ref.medical_institutions WHERE id = $1',
  );
  // Names of staff come from the CRM projection's accounts, tasks from their own projection.
  const reads = [
    communicationsProjection.name,
    tasksProjection.name,
    medicalInstitutionCrmProjection.name,
    vocsProjection.name,
    // A record left by a campaign names it (its `email`).
    emailsProjection.name,
  ];

  // Read beside the records' details, not after them (one wave fewer).
  const attachments = (tenantId: string) => (ids: string[]) => attachmentsOf(deps.files, tenantId, ids);

  registerEndpoint(
    app,
    endpoints.searchCommunications,
    async ({ body, auth }) => searchCommunications(deps.db, auth.tenantId, body, attachments(auth.tenantId)),
    { reads },
  );

  registerEndpoint(
    app,
    endpoints.exportCommunications,
    async ({ body, auth, reply }) => {
      // Before the stream starts: once its first line is sent, a refused condition could not be a 422.
      await checkLabelFilters(deps.db, auth.tenantId, body.label_filters);
      void reply
        .header('content-type', `text/csv; charset=${body.encoding === 'shift_jis' ? 'Shift_JIS' : 'UTF-8'}`)
        // A Japanese name with the day, what the office files it by; the ASCII name for old clients.
        .header(
          'content-disposition',
          `attachment; filename="communications.csv"; filename*=UTF-8''${encodeURIComponent(
            `活動記録_${new Date().toLocaleDateString('sv-SE', { timeZone: 'Asia/Tokyo' })}.csv`,
          )}`,
        );
      // A stream is sent as it is produced (no serialisation of the whole body).
      return exportCommunications(deps.db, auth.tenantId, body) as unknown as string;
    },
    { reads },
  );

  registerEndpoint(
    app,
    endpoints.searchForMedicalInstitution,
    async ({ params, body, auth }) => {
      // The institution's check beside the search, not before it: an unknown id is rare, and its search
      // finds nothing anyway.
      const [known, page] = await Promise.all([
        deps.db.pool.query(institutionExists([params.id])),
        searchCommunications(
          deps.db,
          auth.tenantId,
          { ...body, medical_institution_id: params.id },
          attachments(auth.tenantId),
        ),
      ]);
      if (known.rows.length === 0) throw new HttpError(404);
      return page;
    },
    { reads },
  );

  registerEndpoint(
    app,
    endpoints.getCommunication,
    async ({ params, auth }) => {
      const found = await getCommunication(deps.db, auth.tenantId, params.id, attachments(auth.tenantId));
      if (!found) throw new HttpError(404);
      return found;
    },
    { reads },
  );

  registerEndpoint(
    app,
    endpoints.listCommunicationLabels,
    async ({ query, auth, reply }) => {
      const [labels, orderVersion] = await Promise.all([
        listCommunicationLabels(db(), auth.tenantId, query.communication_type, query.include_deleted),
        communicationLabelOrderVersion(db(), auth.tenantId),
      ]);
      // The order's number of saves: what PUT /communication_labels/orders takes as If-Match.
      void reply.header('etag', `"${orderVersion}"`);
      return labels;
    },
    { reads: [communicationsProjection.name] },
  );
}
