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
import { bothReferralsRanking, referralRanking } from './ranking.queries.ts';
import { effectiveness } from './effectiveness.queries.ts';

/** The rankings and the effectiveness of communications of /data_analysis (issue 13). */
export function registerDataAnalysisQueryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  const db = deps.db.typed<ReadModels>();
  // Tags filter through the CRM read model.
  const reads = { reads: [referralsProjection.name, medicalInstitutionCrmProjection.name] };

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
