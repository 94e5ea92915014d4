import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { HttpError, endpoints } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { medicalInstitutionCrmProjection, referralsProjection, type ReadModels } from '@renkei/read-models';
import { registerEndpoint } from '@renkei/service-kit';
import { lastReverseReferrals, listInstitutionReferrals, referralMarks } from './referrals.queries.ts';
import { institutionReferralChart } from './referrals.chart.ts';

/** The referral reference calls of spec §7 read from the referrals read model. */
export function registerReferralQueryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  // own_departments (the referral's department name) belongs to the CRM read model.
  const reads = { reads: [referralsProjection.name, medicalInstitutionCrmProjection.name] };

  registerEndpoint(
    app,
    endpoints.listMedicalInstitutionReferrals,
    async ({ params, query, auth }) => {
      const db = deps.db.typed<ReadModels>();
      const { rows } = await sql`SELECT 1 FROM ref.medical_institutions WHERE id = ${params.id}`.execute(db);
      if (rows.length === 0) throw new HttpError(404);
      const { total, data } = await listInstitutionReferrals(db, auth.tenantId, params.id, query.page, query.per_page);
      return {
        data,
        meta: {
          total_count: total,
          page: query.page,
          per_page: query.per_page,
          total_pages: Math.ceil(total / query.per_page),
        },
      };
    },
    reads,
  );

  registerEndpoint(
    app,
    endpoints.medicalInstitutionReferrals,
    ({ params, body, auth }) => institutionReferralChart(deps.db.typed<ReadModels>(), auth.tenantId, params.id, body),
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
