import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import { HttpError, endpoints } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { medicalInstitutionCrmProjection, referralsProjection, type ReadModels } from '@renkei/read-models';
import { registerEndpoint, type AuthContext } from '@renkei/service-kit';
import {
  lastReverseReferrals,
  listInstitutionReferrals,
  listInstitutionReverseReferrals,
  referralMarks,
} from './referrals.queries.ts';
import { institutionReferralChart } from './referrals.chart.ts';
import { exportInstitutionReferrals } from './referrals.export.ts';

interface InstitutionPageRequest {
  params: { id: string };
  query: { page: number; per_page: number };
  auth: AuthContext;
}

/** The referral reference calls of spec §7 read from the referrals read model. */
export function registerReferralQueryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  // own_departments (the referral's department name) belongs to the CRM read model.
  const reads = { reads: [referralsProjection.name, medicalInstitutionCrmProjection.name] };

  // The institution's referrals and reverse referrals: the same paging of the same institution's rows.
  const institutionPage =
    <T>(
      list: (
        db: Kysely<ReadModels>,
        tenantId: string,
        institutionId: string,
        page: number,
        perPage: number,
      ) => Promise<{ total: number; data: T[] }>,
    ) =>
    async ({ params, query, auth }: InstitutionPageRequest) => {
      const db = deps.db.typed<ReadModels>();
      const { rows } = await sql`SELECT 1 FROM ref.medical_institutions WHERE id = ${params.id}`.execute(db);
      if (rows.length === 0) throw new HttpError(404);
      const { total, data } = await list(db, auth.tenantId, params.id, query.page, query.per_page);
      return {
        data,
        meta: {
          total_count: total,
          page: query.page,
          per_page: query.per_page,
          total_pages: Math.ceil(total / query.per_page),
        },
      };
    };
  registerEndpoint(app, endpoints.listMedicalInstitutionReferrals, institutionPage(listInstitutionReferrals), reads);
  registerEndpoint(
    app,
    endpoints.exportMedicalInstitutionReferrals,
    async ({ params, query, auth, reply }) => {
      const db = deps.db.typed<ReadModels>();
      const { rows } = await sql`SELECT 1 FROM ref.medical_institutions WHERE id = ${params.id}`.execute(db);
      if (rows.length === 0) throw new HttpError(404);
      void reply
        .header('content-type', `text/csv; charset=${query.encoding === 'shift_jis' ? 'Shift_JIS' : 'UTF-8'}`)
        .header('content-disposition', 'attachment; filename="referrals.csv"');
      // A stream is sent as it is produced (no serialisation of the whole body).
      return exportInstitutionReferrals(db, auth.tenantId, params.id, query.encoding) as unknown as string;
    },
    reads,
  );
  registerEndpoint(
    app,
    endpoints.listMedicalInstitutionReverseReferrals,
    institutionPage(listInstitutionReverseReferrals),
    reads,
  );

  registerEndpoint(
    app,
    endpoints.medicalInstitutionReferrals,
    async ({ params, body, auth }) => {
      const db = deps.db.typed<ReadModels>();
      // An unknown institution is a 404, as on its referral list (not a chart of zeros).
      const { rows } = await sql`SELECT 1 FROM ref.medical_institutions WHERE id = ${params.id}`.execute(db);
      if (rows.length === 0) throw new HttpError(404);
      return institutionReferralChart(db, auth.tenantId, params.id, body);
    },
    { reads: [referralsProjection.name] },
  );

  for (const [endpoint, which] of [
    [endpoints.firstReferrals, 'first'],
    [endpoints.lastReferrals, 'last'],
  ] as const)
    registerEndpoint(
      app,
      endpoint,
      ({ query, auth }) =>
        referralMarks(
          deps.db.typed<ReadModels>(),
          auth.tenantId,
          query.medical_institution_ids,
          query.own_department_ids,
          which,
        ),
      reads,
    );

  registerEndpoint(
    app,
    endpoints.lastReverseReferrals,
    ({ query, auth }) =>
      lastReverseReferrals(
        deps.db.typed<ReadModels>(),
        auth.tenantId,
        query.medical_institution_ids,
        query.own_department_ids,
      ),
    reads,
  );
}
