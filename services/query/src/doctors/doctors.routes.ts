import { sql } from 'kysely';
import type { ReadModels } from '@renkei/read-models';
import type { FastifyInstance } from 'fastify';
import { endpoints, type Doctor } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { registerEndpoint } from '@renkei/service-kit';
import { medicalInstitutionCrmProjection } from '@renkei/read-models';
import { assertInstitution } from '../medical-institutions/medical-institutions.routes.ts';

async function listDoctors(db: Database, tenantId: string, institutionId: string): Promise<Doctor[]> {
  const rows = await db
    .typed<ReadModels>()
    .selectFrom('rm.mi_doctors')
    .select([
      'id',
      'medical_institution_id',
      'division',
      'position',
      'name',
      'honorific',
      'email',
      'phone_number',
      'profile',
      'memo',
      'updated_at',
      'version',
    ])
    .where('tenant_id', '=', tenantId)
    .where('medical_institution_id', '=', institutionId)
    .orderBy('division')
    .orderBy('position')
    .orderBy('name')
    .orderBy('id')
    .execute();
  return rows.map(({ updated_at, ...r }) => ({ ...r, updated_date: new Date(updated_at).toISOString() }));
}

export function registerDoctorQueryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  const reads = [medicalInstitutionCrmProjection.name];
  registerEndpoint(
    app,
    endpoints.listEmailDestinations,
    async ({ query, auth }) => {
      const conds = [sql`d.tenant_id = ${auth.tenantId}`, sql`d.email IS NOT NULL`, sql`d.email <> ''`];
      if (query.keyword) {
        const k = `%${query.keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        conds.push(sql`(d.name ILIKE ${k} OR d.email ILIKE ${k} OR d.division ILIKE ${k} OR m.name ILIKE ${k})`);
      }
      if (query.medical_institution_ids?.length)
        conds.push(sql`d.medical_institution_id = ANY(${sql.val(query.medical_institution_ids)}::uuid[])`);
      const where = sql.join(conds, sql` AND `);
      const from = sql`rm.mi_doctors d JOIN ref.medical_institutions m ON m.id = d.medical_institution_id`;
      const [counted, page] = await Promise.all([
        sql<{ n: number }>`SELECT count(*)::int AS n FROM ${from} WHERE ${where}`.execute(deps.db.typed<ReadModels>()),
        sql<{
          id: string;
          name: string;
          honorific: string;
          email: string;
          division: string;
          position: string;
          mi_id: string;
          mi_name: string;
        }>`
          SELECT d.id, d.name, d.honorific, d.email, d.division, d.position, m.id AS mi_id, m.name AS mi_name
            FROM ${from} WHERE ${where} ORDER BY m.kana, d.division, d.position, d.name, d.id
           LIMIT ${query.per_page} OFFSET ${(query.page - 1) * query.per_page}`.execute(deps.db.typed<ReadModels>()),
      ]);
      const total = counted.rows[0]?.n ?? 0;
      return {
        data: page.rows.map(({ mi_id, mi_name, ...d }) => ({
          ...d,
          medical_institution: { id: mi_id, name: mi_name },
        })),
        meta: {
          total_count: total,
          page: query.page,
          per_page: query.per_page,
          total_pages: Math.ceil(total / query.per_page),
        },
      };
    },
    { reads },
  );
  registerEndpoint(
    app,
    endpoints.listDoctors,
    async ({ params, auth }) => {
      await assertInstitution(deps.db, params.id);
      return listDoctors(deps.db, auth.tenantId, params.id);
    },
    { reads },
  );
}
