import type { FastifyInstance } from 'fastify';
import { endpoints } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import {
  communicationsProjection,
  medicalInstitutionCrmProjection,
  referralsProjection,
  type ReadModels,
} from '@renkei/read-models';
import { registerEndpoint } from '@renkei/service-kit';
import { coverage } from '../charts/analysis.queries.ts';
import { bothReferralsRanking, referralRanking } from './ranking.queries.ts';
import { effectiveness } from './effectiveness.queries.ts';

/** The rankings and the effectiveness of communications of /data_analysis (issue 13). */
export function registerDataAnalysisQueryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  const db = deps.db.typed<ReadModels>();
  // Tags filter through the CRM read model.
  const reads = { reads: [referralsProjection.name, medicalInstitutionCrmProjection.name] };

  // Where the uploaded data ends: the page's 年度 to date ends there (an addition to the spec).
  registerEndpoint(
    app,
    endpoints.dataCoverage,
    async ({ auth }) => {
      const [referrals, reverse] = await Promise.all([
        coverage(db, auth.tenantId, 'referrals'),
        coverage(db, auth.tenantId, 'reverse_referrals'),
      ]);
      return { referrals, reverse_referrals: reverse };
    },
    { reads: [referralsProjection.name] },
  );
  registerEndpoint(
    app,
    endpoints.referralAnnualRanking,
    ({ body, auth }) => referralRanking(db, auth.tenantId, body, 'fiscal_year'),
    reads,
  );
  registerEndpoint(
    app,
    endpoints.referralMonthlyRanking,
    ({ body, auth }) => referralRanking(db, auth.tenantId, body, 'month'),
    reads,
  );
  registerEndpoint(
    app,
    endpoints.referralTotalCountRanking,
    ({ body, auth }) => referralRanking(db, auth.tenantId, body, null),
    reads,
  );
  registerEndpoint(
    app,
    endpoints.bothReferralsMonthlyRanking,
    ({ body, auth }) => bothReferralsRanking(db, auth.tenantId, body),
    reads,
  );
  registerEndpoint(
    app,
    endpoints.effectivenessVerification,
    ({ body, auth }) => effectiveness(db, auth.tenantId, body),
    { reads: [referralsProjection.name, communicationsProjection.name] },
  );
}
