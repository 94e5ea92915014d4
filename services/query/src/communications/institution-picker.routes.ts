import type { FastifyInstance } from 'fastify';
import { endpoints } from '@renkei/contracts';
import { registerEndpoint } from '@renkei/service-kit';
import { communicationsProjection, type ReadModels } from '@renkei/read-models';
import type { Kysely } from 'kysely';
import { nearbyInstitutions, recentCommunicationInstitutions } from './institution-picker.queries.ts';

/** The communication form's institution picker: the caller's recent institutions and those nearby. */
export function registerInstitutionPickerRoutes(app: FastifyInstance, db: () => Kysely<ReadModels>): void {
  registerEndpoint(
    app,
    endpoints.listRecentCommunicationInstitutions,
    async ({ auth }) => ({ data: await recentCommunicationInstitutions(db(), auth.tenantId, auth.accountId) }),
    // The record just saved is among them when the form opens again.
    { reads: [communicationsProjection.name] },
  );

  registerEndpoint(
    app,
    endpoints.listNearbyMedicalInstitutions,
    async ({ query, auth }) => ({ data: await nearbyInstitutions(db(), auth.tenantId, query) }),
    // Last visits are kept by the communications projection.
    { reads: [communicationsProjection.name] },
  );
}
