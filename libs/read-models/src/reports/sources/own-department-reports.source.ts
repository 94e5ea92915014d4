import { sql } from 'kysely';
import { staticReportItems } from '@renkei/contracts';
import { medicalInstitutionCrmProjection } from '../../medical-institutions/medical-institution-crm.projection.ts';
import { referralsProjection } from '../../referrals/referrals.projection.ts';
import { addGroupFigures, noOwnDepartment, referralFigures } from '../engine/referral-figures.ts';
import type { ReportSource, ReportSourceRow } from '../engine/report-source.ts';

/** The row of figures without an own department (the nil uuid in the rollups). */
const noOwnDepartmentName = '診療科なし';

/**
 * 自院診療科レポート: one row per own department of the tenant, plus 「診療科なし」 when the report's
 * periods have figures without one. `referring_institution_count` of a bucket is the distinct
 * institutions with a referral in it (a sum over buckets counts an institution once per bucket).
 */
export const ownDepartmentReportsSource: ReportSource = {
  kind: 'own_department_reports',
  reads: [referralsProjection.name, medicalInstitutionCrmProjection.name],

  async items() {
    return [...staticReportItems.own_department_reports];
  },

  async load(db, request) {
    const { tenantId, ownDepartmentIds } = request;
    const { rows } = await sql<{ id: string; name: string }>`
      SELECT id::text AS id, name FROM rm.own_departments
       WHERE tenant_id = ${tenantId}
         ${ownDepartmentIds.length > 0 ? sql`AND id = ANY(${sql.val(ownDepartmentIds)}::uuid[])` : sql``}
       ORDER BY sort_order, id`.execute(db);
    const byId = new Map<string, ReportSourceRow>(
      rows.map((r, i) => [
        r.id,
        { id: r.id, order: i, values: { own_department_name: r.name }, figures: {}, comparisonFigures: {} },
      ]),
    );
    const none: ReportSourceRow = {
      id: noOwnDepartment,
      order: rows.length,
      values: { own_department_name: noOwnDepartmentName },
      figures: {},
      comparisonFigures: {},
    };
    addGroupFigures(
      new Map(byId).set(noOwnDepartment, none),
      await referralFigures(db, {
        tenantId,
        buckets: request.buckets,
        comparisonBuckets: request.comparisonBuckets,
        items: request.itemKeys,
        groupBy: 'own_department_id',
        ownDepartmentIds,
      }),
      request.buckets,
      request.comparisonBuckets,
    );
    const hasFigures = Object.keys(none.figures).length > 0 || Object.keys(none.comparisonFigures).length > 0;
    return hasFigures ? [...byId.values(), none] : [...byId.values()];
  },
};
