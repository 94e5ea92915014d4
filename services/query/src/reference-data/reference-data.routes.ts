import type { ReadModels } from '@renkei/read-models';
import type { FastifyInstance } from 'fastify';
import { endpoints, listVersion, ownDepartmentsVersion } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { departments, facilityTypeGroups, kcodes, mdcs, normalizeKeyword } from '@renkei/institution-master';
import { registerEndpoint } from '@renkei/service-kit';
import { medicalInstitutionCrmProjection } from '@renkei/read-models';

const code = (id: number) => String(id).padStart(2, '0');
const searchableKcodes = kcodes.map((k) => ({ ...k, search: normalizeKeyword(`${k.code} ${k.name}`) }));

/** Reference data: the shared lists are project facts (@renkei/institution-master); the rest is the tenant's. */
export function registerReferenceDataRoutes(app: FastifyInstance, deps: { db: Database }): void {
  const reads = [medicalInstitutionCrmProjection.name];
  registerEndpoint(app, endpoints.listDepartments, async () =>
    departments.map((d) => ({ id: code(d.id), name: d.name })),
  );
  registerEndpoint(app, endpoints.listFacilityTypeGroups, async () =>
    facilityTypeGroups.map((g) => ({
      id: code(g.id),
      name: g.name,
      facility_types: g.facilityTypes.map((t) => ({ id: code(t.id), name: t.name })),
    })),
  );
  registerEndpoint(app, endpoints.listMdcs, async () => mdcs.map((m) => ({ id: m.code, name: m.name })));
  registerEndpoint(app, endpoints.listKcodes, async ({ query }) => {
    const k = query.keyword ? normalizeKeyword(query.keyword) : '';
    const hits = searchableKcodes.filter((x) => !k || x.search.includes(k));
    const start = (query.page - 1) * query.per_page;
    return {
      data: hits.slice(start, start + query.per_page).map((x) => ({ code: x.code, name: x.name })),
      meta: {
        total_count: hits.length,
        page: query.page,
        per_page: query.per_page,
        total_pages: Math.ceil(hits.length / query.per_page),
      },
    };
  });
  registerEndpoint(
    app,
    endpoints.listOwnDepartments,
    async ({ auth, reply }) => {
      const rows = await deps.db
        .typed<ReadModels>()
        .selectFrom('rm.own_departments')
        .select(['id', 'name', 'department_id', 'sort_order as order'])
        .where('tenant_id', '=', auth.tenantId)
        .orderBy('sort_order')
        .orderBy('id')
        .execute();
      // The version a PUT /own_medical_institution/departments based on this list sends back as If-Match.
      void reply.header('etag', `"${ownDepartmentsVersion(rows)}"`);
      return rows;
    },
    { reads },
  );
  registerEndpoint(
    app,
    endpoints.listPhaseMasters,
    async ({ auth, reply }) => {
      const rows = await deps.db
        .typed<ReadModels>()
        .selectFrom('rm.phase_masters')
        .select(['id', 'name', 'description', 'sort_order as order'])
        .where('tenant_id', '=', auth.tenantId)
        .orderBy('sort_order')
        .orderBy('id')
        .execute();
      // The version a PUT /phase_masters based on this list sends back as If-Match.
      void reply.header('etag', `"${listVersion(rows)}"`);
      return rows;
    },
    { reads },
  );
}
