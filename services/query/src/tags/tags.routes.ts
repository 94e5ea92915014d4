import type { FastifyInstance } from 'fastify';
import { endpoints } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { registerEndpoint } from '@renkei/service-kit';
import { tagsProjection, type ReadModels } from '@renkei/read-models';
import { listTagGroups, listTags } from './tags.queries.ts';

export function registerTagQueryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  const reads = [tagsProjection.name];
  registerEndpoint(
    app,
    endpoints.listTags,
    async ({ query, auth }) => listTags(deps.db.typed<ReadModels>(), auth.tenantId, query),
    {
      reads,
    },
  );
  registerEndpoint(
    app,
    endpoints.listTagGroups,
    async ({ auth }) => listTagGroups(deps.db.typed<ReadModels>(), auth.tenantId),
    {
      reads,
    },
  );
}
