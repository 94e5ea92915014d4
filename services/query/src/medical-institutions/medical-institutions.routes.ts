import { sql } from 'kysely';
import type { ReadModels } from '@renkei/read-models';
import type { FastifyInstance } from 'fastify';
import { HttpError, endpoints, type MedicalInstitutionNote } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { registerEndpoint } from '@renkei/service-kit';
import {
  communicationsProjection,
  medicalInstitutionCrmProjection,
  tenantSettingsProjection,
} from '@renkei/read-models';
import { exportMedicalInstitutions } from './medical-institutions.export.ts';
import {
  accountJoin,
  detailColumns,
  fromClause,
  labelValuesOf,
  searchMedicalInstitutions,
  toMedicalInstitution,
  type InstitutionRow,
} from './medical-institutions.queries.ts';

/** The institution must be in the shared master; an unknown id is a 404. */
export async function assertInstitution(db: Database, id: string): Promise<void> {
  const { rows } = await sql`SELECT 1 FROM ref.medical_institutions WHERE id = ${id}`.execute(db.typed<ReadModels>());
  if (rows.length === 0) throw new HttpError(404);
}

async function note(
  db: Database,
  tenantId: string,
  institutionId: string,
  kind: 'memo' | 'special_note',
): Promise<MedicalInstitutionNote> {
  const { rows } = await sql<{
    content: string;
    updated_by: string | null;
    name: string | null;
    updated_at: Date;
    version: number;
  }>`
    SELECT n.content, n.updated_by, a.name, n.updated_at, n.version FROM rm.mi_notes n
      LEFT JOIN rm.mi_accounts a ON a.tenant_id = n.tenant_id AND a.account_id = n.updated_by
     WHERE n.tenant_id = ${tenantId} AND n.medical_institution_id = ${institutionId} AND n.kind = ${kind}`.execute(
    db.typed<ReadModels>(),
  );
  const r = rows[0];
  return {
    medical_institution_id: institutionId,
    content: r?.content ?? '',
    updated_by: r?.updated_by ? { id: r.updated_by, name: r.name ?? '' } : null,
    updated_at: r ? new Date(r.updated_at).toISOString() : null,
    version: r?.version ?? 0,
  };
}

export function registerMedicalInstitutionQueryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  const { db } = deps;
  // Last visit dates come from the communications projection.
  const reads = [medicalInstitutionCrmProjection.name, 'tags', communicationsProjection.name];

  registerEndpoint(
    app,
    endpoints.searchMedicalInstitutions,
    async ({ body, auth }) => searchMedicalInstitutions(db.typed<ReadModels>(), auth.tenantId, body),
    {
      reads,
    },
  );

  registerEndpoint(
    app,
    endpoints.exportMedicalInstitutions,
    async ({ body, auth, reply }) => {
      const filename = body.encoding === 'shift_jis' ? 'medical_institutions_sjis.csv' : 'medical_institutions.csv';
      void reply
        .header('content-type', `text/csv; charset=${body.encoding === 'shift_jis' ? 'Shift_JIS' : 'UTF-8'}`)
        .header('content-disposition', `attachment; filename="${filename}"`);
      // A stream is sent as it is produced (no serialisation of the whole body).
      return exportMedicalInstitutions(db, auth.tenantId, body) as unknown as string;
    },
    { reads },
  );

  registerEndpoint(
    app,
    endpoints.getSummary,
    async ({ params, auth }) => {
      const { rows } = await sql<InstitutionRow>`
        SELECT ${detailColumns(auth.tenantId)} FROM ${fromClause(auth.tenantId)} ${accountJoin(auth.tenantId)}
         WHERE m.id = ${params.id}`.execute(db.typed<ReadModels>());
      if (!rows[0]) throw new HttpError(404);
      const [memo, specialNote, values, doctors, group] = await Promise.all([
        note(db, auth.tenantId, params.id, 'memo'),
        note(db, auth.tenantId, params.id, 'special_note'),
        labelValuesOf(db.typed<ReadModels>(), auth.tenantId, [params.id]),
        sql<{
          n: number;
        }>`SELECT count(*)::int AS n FROM rm.mi_doctors WHERE tenant_id = ${auth.tenantId} AND medical_institution_id = ${params.id}`.execute(
          db.typed<ReadModels>(),
        ),
        sql<{ group: boolean }>`
          SELECT EXISTS (SELECT 1 FROM rm.tenant_settings
                          WHERE tenant_id = ${auth.tenantId} AND ${params.id}::uuid = ANY(group_medical_institution_ids))
                 AS "group"`.execute(db.typed<ReadModels>()),
      ]);
      return {
        ...toMedicalInstitution(rows[0]),
        group_medical_institution: group.rows[0]?.group ?? false,
        doctor_count: doctors.rows[0]?.n ?? 0,
        communication_count: null,
        open_task_count: null,
        memo,
        special_note: specialNote,
        label_values: values.get(params.id) ?? [],
      };
    },
    { reads: [...reads, tenantSettingsProjection.name] },
  );

  registerEndpoint(
    app,
    endpoints.getMemo,
    async ({ params, auth }) => {
      await assertInstitution(db, params.id);
      return note(db, auth.tenantId, params.id, 'memo');
    },
    { reads },
  );

  registerEndpoint(
    app,
    endpoints.getTags,
    async ({ params, auth }) => {
      await assertInstitution(db, params.id);
      const { rows } = await sql<{ id: string; name: string }>`
        SELECT tg.id, tg.name FROM rm.mi_tags x JOIN rm.tags tg ON tg.tenant_id = x.tenant_id AND tg.id = x.tag_id
         WHERE x.tenant_id = ${auth.tenantId} AND x.medical_institution_id = ${params.id} ORDER BY tg.name, tg.id`.execute(
        db.typed<ReadModels>(),
      );
      return rows;
    },
    { reads },
  );

  registerEndpoint(
    app,
    endpoints.getLabelValues,
    async ({ params, auth }) => {
      await assertInstitution(db, params.medical_institution_id);
      return (
        (await labelValuesOf(db.typed<ReadModels>(), auth.tenantId, [params.medical_institution_id])).get(
          params.medical_institution_id,
        ) ?? []
      );
    },
    { reads },
  );
}
