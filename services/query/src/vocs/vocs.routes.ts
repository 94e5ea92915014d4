import type { FastifyInstance } from 'fastify';
import { endpoints, listVersion } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { registerEndpoint } from '@renkei/service-kit';
import {
  communicationsProjection,
  medicalInstitutionCrmProjection,
  vocsProjection,
  type ReadModels,
} from '@renkei/read-models';
import { exportVocs } from './vocs.export.ts';
import { listVocGroups, listVocs } from './vocs.queries.ts';

export function registerVocQueryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  const db = () => deps.db.typed<ReadModels>();
  // Staff names come from the CRM projection's accounts, linked records from the communications'.
  const reads = [vocsProjection.name, communicationsProjection.name, medicalInstitutionCrmProjection.name];

  registerEndpoint(app, endpoints.listVocs, async ({ query, auth }) => listVocs(db(), auth.tenantId, query), {
    reads,
  });

  registerEndpoint(
    app,
    endpoints.exportVocs,
    async ({ query, auth, reply }) => {
      void reply
        .header('content-type', `text/csv; charset=${query.encoding === 'shift_jis' ? 'Shift_JIS' : 'UTF-8'}`)
        .header('content-disposition', 'attachment; filename="vocs.csv"');
      // A stream is sent as it is produced (no serialisation of the whole body).
      return exportVocs(db(), auth.tenantId, query) as unknown as string;
    },
    { reads },
  );

  registerEndpoint(
    app,
    endpoints.listVocGroups,
    async ({ auth, reply }) => {
      const groups = await listVocGroups(db(), auth.tenantId);
      // The version a PUT /voc_groups based on this list sends back as If-Match.
      void reply.header('etag', `"${listVersion(groups)}"`);
      return groups;
    },
    { reads: [vocsProjection.name] },
  );
}
