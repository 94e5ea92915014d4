import type { FastifyInstance } from 'fastify';
import { endpoints } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { medicalInstitutionCrmProjection, referralsProjection, type ReadModels } from '@renkei/read-models';
import { registerEndpoint } from '@renkei/service-kit';
import { referralAggregation } from './referral-report.queries.ts';

/** POST /referral_reports/aggregation_results (issue 13). */
export function registerReferralReportQueryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  const db = deps.db.typed<ReadModels>();
  registerEndpoint(
    app,
    endpoints.referralReportsAggregationResults,
    ({ body, auth }) => referralAggregation(db, auth.tenantId, body),
    // Own department names and tags come from the CRM read model.
    { reads: [referralsProjection.name, medicalInstitutionCrmProjection.name] },
  );
}
