import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import { HttpError, endpoints, forbidden, type GroupChartBody } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import {
  medicalInstitutionCrmProjection,
  referralsProjection,
  tenantSettingsProjection,
  type ReadModels,
} from '@renkei/read-models';
import { registerEndpoint } from '@renkei/service-kit';
import {
  annualComparisonChart,
  comparisonTrendChart,
  departmentComparisonChart,
  groupComparisonChart,
  groupMonthlyComparisonChart,
  groupTrendChart,
  institutionDepartmentChart,
  trendChart,
} from './charts.queries.ts';

/**
 * The group's institutions a group chart compares: those of the tenant settings, narrowed to the ones
 * the body names. A tenant without group institutions is not a group (403); a named institution outside
 * the group is a field error.
 */
async function groupInstitutions(db: Kysely<ReadModels>, tenantId: string, body: GroupChartBody): Promise<string[]> {
  const row = await db
    .selectFrom('rm.tenant_settings')
    .select('group_medical_institution_ids')
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  const group = row?.group_medical_institution_ids ?? [];
  if (group.length === 0) throw forbidden('グループ病院の設定がないため、グループ分析は利用できません');
  const errors = body.group_medical_institution_ids.flatMap((id, i) =>
    group.includes(id)
      ? []
      : [{ field: `group_medical_institution_ids.${i}`, message: 'グループ病院に含まれない医療機関です' }],
  );
  if (errors.length > 0) throw new HttpError(422, undefined, { errors });
  return body.group_medical_institution_ids.length > 0 ? [...new Set(body.group_medical_institution_ids)] : group;
}

/** The referral charts of spec §7 (issue 13), read from the analysis rollups of the referrals read model. */
export function registerChartQueryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  const db = deps.db.typed<ReadModels>();
  // Tags filter through the CRM read model; group institutions come from the tenant settings.
  const reads = { reads: [referralsProjection.name, medicalInstitutionCrmProjection.name] };
  const groupReads = { reads: [...reads.reads, tenantSettingsProjection.name] };

  registerEndpoint(
    app,
    endpoints.referrals,
    ({ body, auth }) => trendChart(db, auth.tenantId, body, ['referrals', 'admitted', 'operated']),
    reads,
  );
  registerEndpoint(
    app,
    endpoints.referralsComparison,
    ({ body, auth }) => comparisonTrendChart(db, auth.tenantId, body, ['referrals']),
    reads,
  );
  registerEndpoint(
    app,
    endpoints.referralsComparisonMonthly,
    ({ body, auth }) => comparisonTrendChart(db, auth.tenantId, body, ['referrals'], true),
    reads,
  );
  registerEndpoint(
    app,
    endpoints.referralsComparisonAnnual,
    ({ body, auth }) => annualComparisonChart(db, auth.tenantId, body, null),
    reads,
  );
  registerEndpoint(
    app,
    endpoints.referralsComparisonDepartments,
    ({ body, auth }) => departmentComparisonChart(db, auth.tenantId, body, 'referrals'),
    reads,
  );
  registerEndpoint(
    app,
    endpoints.reverseReferralsComparisonDepartments,
    ({ body, auth }) => departmentComparisonChart(db, auth.tenantId, body, 'reverse_referrals'),
    reads,
  );
  registerEndpoint(
    app,
    endpoints.reverseReferralsComparisonMonthly,
    ({ body, auth }) => comparisonTrendChart(db, auth.tenantId, body, ['reverse_referrals'], true),
    reads,
  );
  registerEndpoint(
    app,
    endpoints.bothReferralsComparison,
    ({ body, auth }) => comparisonTrendChart(db, auth.tenantId, body, ['referrals', 'reverse_referrals']),
    reads,
  );
  registerEndpoint(
    app,
    endpoints.medicalInstitutionReferralDepartments,
    async ({ params, body, auth }) => {
      const { rows } = await sql`SELECT 1 FROM ref.medical_institutions WHERE id = ${params.id}`.execute(db);
      if (rows.length === 0) throw new HttpError(404);
      return institutionDepartmentChart(db, auth.tenantId, params.id, body);
    },
    reads,
  );

  registerEndpoint(
    app,
    endpoints.groupReferrals,
    async ({ body, auth }) =>
      groupTrendChart(db, auth.tenantId, body, await groupInstitutions(db, auth.tenantId, body)),
    groupReads,
  );
  registerEndpoint(
    app,
    endpoints.groupReferralsComparison,
    async ({ body, auth }) =>
      groupComparisonChart(db, auth.tenantId, body, await groupInstitutions(db, auth.tenantId, body)),
    groupReads,
  );
  registerEndpoint(
    app,
    endpoints.groupReferralsComparisonAnnual,
    async ({ body, auth }) =>
      annualComparisonChart(db, auth.tenantId, body, await groupInstitutions(db, auth.tenantId, body)),
    groupReads,
  );
  registerEndpoint(
    app,
    endpoints.groupReferralsComparisonMonthly,
    async ({ body, auth }) =>
      groupMonthlyComparisonChart(db, auth.tenantId, body, await groupInstitutions(db, auth.tenantId, body)),
    groupReads,
  );
}
