import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { endpoints, type Doctor } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { registerEndpoint } from '@renkei/service-kit';
import { medicalInstitutionCrmProjection } from '../medical-institutions/medical-institution-crm.projection.ts';
import { assertInstitution } from '../medical-institutions/medical-institutions.routes.ts';

export async function listDoctors(db: Database, tenantId: string, institutionId: string): Promise<Doctor[]> {
  const { rows } = await sql<Omit<Doctor, 'updated_date'> & { updated_at: Date }>`
    SELECT id, medical_institution_id, division, position, name, honorific, email, phone_number, profile, memo, updated_at, version
      FROM rm.mi_doctors WHERE tenant_id = ${tenantId} AND medical_institution_id = ${institutionId}
     ORDER BY division, position, name, id`.execute(db.kysely);
  return rows.map(({ updated_at, ...r }) => ({ ...r, updated_date: new Date(updated_at).toISOString() }));
}

export function registerDoctorQueryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  const reads = [medicalInstitutionCrmProjection.name];
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
