import type { FastifyInstance } from 'fastify';
import { HttpError, endpoints } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { registerEndpoint } from '@renkei/service-kit';
import {
  actionListsProjection,
  communicationsProjection,
  medicalInstitutionCrmProjection,
  referralsProjection,
  type ReadModels,
} from '@renkei/read-models';
import { assertInstitution } from '../medical-institutions/medical-institutions.routes.ts';
import { exportActionListItems } from './action-lists.export.ts';
import {
  actionListName,
  actionListsOfInstitution,
  getActionList,
  listActionLists,
  listActionListItems,
} from './action-lists.queries.ts';

/** A value of `filename*` (RFC 5987): percent-encoded UTF-8, `'()*` included. */
const rfc5987 = (value: string) =>
  encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export function registerActionListQueryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  const db = () => deps.db.typed<ReadModels>();
  // Creators' and updaters' names come from the CRM projection's accounts.
  const reads = [actionListsProjection.name, medicalInstitutionCrmProjection.name];
  // The items' referral figures and last visits come from the referral rollups and the communications.
  const itemReads = [...reads, referralsProjection.name, communicationsProjection.name];

  /** Another tenant's list, a deleted one and a made-up id are all a 404. */
  async function assertList(tenantId: string, id: string): Promise<string> {
    const name = await actionListName(db(), tenantId, id);
    if (name === null) throw new HttpError(404);
    return name;
  }

  registerEndpoint(
    app,
    endpoints.listActionLists,
    async ({ query, auth }) => listActionLists(db(), auth.tenantId, query),
    { reads },
  );

  registerEndpoint(
    app,
    endpoints.getActionList,
    async ({ params, auth }) => {
      const list = await getActionList(db(), auth.tenantId, params.id);
      if (list === null) throw new HttpError(404);
      return list;
    },
    { reads },
  );

  registerEndpoint(
    app,
    endpoints.listItems,
    async ({ params, query, auth }) => {
      await assertList(auth.tenantId, params.id);
      return listActionListItems(db(), auth.tenantId, params.id, query);
    },
    { reads: itemReads },
  );

  registerEndpoint(
    app,
    endpoints.exportItems,
    async ({ params, query, auth, reply }) => {
      const name = await assertList(auth.tenantId, params.id);
      // The list's name as the file's (RFC 6266), with an ASCII name for clients that ignore filename*.
      void reply
        .header('content-type', `text/csv; charset=${query.encoding === 'shift_jis' ? 'Shift_JIS' : 'UTF-8'}`)
        .header(
          'content-disposition',
          `attachment; filename="action-list.csv"; filename*=UTF-8''${rfc5987(`${name}.csv`)}`,
        );
      // A stream is sent as it is produced (no serialisation of the whole body).
      return exportActionListItems(db(), auth.tenantId, params.id, query) as unknown as string;
    },
    { reads: itemReads },
  );

  registerEndpoint(
    app,
    endpoints.getActionLists,
    async ({ params, auth }) => {
      await assertInstitution(deps.db, params.id);
      return actionListsOfInstitution(db(), auth.tenantId, params.id);
    },
    { reads: [actionListsProjection.name] },
  );
}
