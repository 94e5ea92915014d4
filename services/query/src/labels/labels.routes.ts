import { sql } from 'kysely';
import type { ReadModels } from '@renkei/read-models';
import type { FastifyInstance } from 'fastify';
import { endpoints, type MedicalInstitutionLabel } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { registerEndpoint } from '@renkei/service-kit';
import { medicalInstitutionCrmProjection } from '@renkei/read-models';
import { fromClause, labelValuesOf, searchConditions } from '../medical-institutions/medical-institutions.queries.ts';

export async function listMedicalInstitutionLabels(db: Database, tenantId: string): Promise<MedicalInstitutionLabel[]> {
  return db
    .typed<ReadModels>()
    .selectFrom('rm.medical_institution_labels')
    .select(['id', 'name', 'description', 'component_type', 'sort_order as order', 'selections', 'areas', 'version'])
    .where('tenant_id', '=', tenantId)
    .orderBy('sort_order')
    .orderBy('id')
    .execute();
}

export function registerLabelQueryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  const reads = [medicalInstitutionCrmProjection.name];
  registerEndpoint(
    app,
    endpoints.listMedicalInstitutionLabels,
    async ({ auth }) => listMedicalInstitutionLabels(deps.db, auth.tenantId),
    {
      reads,
    },
  );

  registerEndpoint(
    app,
    endpoints.searchForLabels,
    async ({ body, auth }) => {
      const db = deps.db.typed<ReadModels>();
      const where = await searchConditions(db, auth.tenantId, body);
      const [counted, page] = await Promise.all([
        sql<{ n: number }>`SELECT count(*)::int AS n FROM ${fromClause(auth.tenantId)} WHERE ${where}`.execute(db),
        sql<{ id: string; code: string; name: string; address: string }>`
          SELECT m.id, m.code, m.name, m.address FROM ${fromClause(auth.tenantId)} WHERE ${where}
           ORDER BY m.kana, m.id LIMIT ${body.per_page} OFFSET ${(body.page - 1) * body.per_page}`.execute(db),
      ]);
      const values = await labelValuesOf(
        db,
        auth.tenantId,
        page.rows.map((r) => r.id),
      );
      const only = body.label_ids ? new Set(body.label_ids) : null;
      const total = counted.rows[0]?.n ?? 0;
      return {
        data: page.rows.map((r) => ({
          ...r,
          label_values: (values.get(r.id) ?? []).filter((v) => !only || only.has(v.label_id)),
        })),
        meta: {
          total_count: total,
          page: body.page,
          per_page: body.per_page,
          total_pages: Math.ceil(total / body.per_page),
        },
      };
    },
    { reads },
  );
}
