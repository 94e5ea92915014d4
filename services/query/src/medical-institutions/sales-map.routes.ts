import type { FastifyInstance } from 'fastify';
import { endpoints } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { registerEndpoint } from '@renkei/service-kit';
import {
  communicationsProjection,
  medicalInstitutionCrmProjection,
  referralsProjection,
  type ReadModels,
} from '@renkei/read-models';
import { searchForSalesMap } from './sales-map.queries.ts';

export function registerSalesMapQueryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  registerEndpoint(
    app,
    endpoints.searchForSalesMap,
    async ({ body, auth }) => searchForSalesMap(deps.db.typed<ReadModels>(), auth.tenantId, body),
    // Tags and label values (CRM), visits (communications), referral rollups (referrals).
    {
      reads: [medicalInstitutionCrmProjection.name, 'tags', communicationsProjection.name, referralsProjection.name],
    },
  );
}
