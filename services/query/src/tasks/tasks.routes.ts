import type { FastifyInstance } from 'fastify';
import { HttpError, endpoints } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { registerEndpoint } from '@renkei/service-kit';
import { medicalInstitutionCrmProjection, tasksProjection, type ReadModels } from '@renkei/read-models';
import { getTask, listTasks } from './tasks.queries.ts';

export function registerTaskQueryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  const db = () => deps.db.typed<ReadModels>();
  // Staff names come from the CRM projection's accounts.
  const reads = [tasksProjection.name, medicalInstitutionCrmProjection.name];

  registerEndpoint(app, endpoints.listTasks, async ({ query, auth }) => listTasks(db(), auth.tenantId, query), {
    reads,
  });

  registerEndpoint(
    app,
    endpoints.getTask,
    async ({ params, auth }) => {
      const task = await getTask(db(), auth.tenantId, params.id);
      if (!task) throw new HttpError(404);
      return task;
    },
    { reads },
  );
}
