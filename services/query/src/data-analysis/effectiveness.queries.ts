import { sql, type Kysely } from 'kysely';
import type { EffectivenessBody } from '@renkei/contracts';
import type { ReadModels } from '@renkei/read-models';
import { institutionConditions, institutionNames, sumRollups } from '../charts/analysis.queries.ts';

const changeRate = (now: number, before: number) => (before === 0 ? null : (now - before) / before);

/**
 * Did the communications work (docs/decisions.md, Referral analysis: visit effectiveness)? The
 * institutions with a communication of the chosen types (by the chosen staff) in the period, each with
 * its days of communication (several on one day count once) and its referrals in the period against
 * the comparison period; the institutions without one, that referred in either period, are the control.
 * Facility types, tags and the area (prefectures, cities) keep the institutions that pass on both sides.
 */
export async function effectiveness(db: Kysely<ReadModels>, tenantId: string, body: EffectivenessBody) {
  const { rows: contacted } = await sql<{ id: string; days: number }>`
    SELECT medical_institution_id AS id, count(DISTINCT acted_date)::int AS days
      FROM rm.communications
     WHERE tenant_id = ${tenantId}
       AND acted_date >= ${body.period.from}::date AND acted_date <= ${body.period.to}::date
       AND communication_type = ANY(${sql.val(body.communication_types)}::text[])
       AND (${body.user_ids.length === 0} OR user_id = ANY(${sql.val(body.user_ids)}::uuid[]))
       ${sql.join(
         institutionConditions(tenantId, body, sql`medical_institution_id`).map((c) => sql`AND ${c}`),
         sql` `,
       )}
     GROUP BY medical_institution_id`.execute(db);
  const filters = {
    own_department_ids: body.own_department_ids,
    facility_type_ids: body.facility_type_ids,
    tag_ids: body.tag_ids,
    prefectures: body.prefectures,
    cities: body.cities,
  };
  const [now, before, names] = await Promise.all([
    sumRollups(db, tenantId, filters, body.period, 'referrals', 'institution'),
    sumRollups(db, tenantId, filters, body.comparison_period, 'referrals', 'institution'),
    institutionNames(
      db,
      contacted.map((c) => c.id),
    ),
  ]);
  const data = contacted
    .map((c) => {
      const referral = now.get(c.id) ?? 0;
      const comparison = before.get(c.id) ?? 0;
      return {
        medical_institution: { id: c.id, name: names.get(c.id) ?? '' },
        communication_count: c.days,
        referral_count: referral,
        comparison_referral_count: comparison,
        rate_of_referral_change: changeRate(referral, comparison),
      };
    })
    .sort(
      (a, b) =>
        b.communication_count - a.communication_count ||
        a.medical_institution.name.localeCompare(b.medical_institution.name, 'ja') ||
        a.medical_institution.id.localeCompare(b.medical_institution.id),
    );
  const ids = new Set(contacted.map((c) => c.id));
  const sum = (m: Map<string, number>, inGroup: boolean) =>
    [...m].reduce((n, [id, v]) => (ids.has(id) === inGroup ? n + v : n), 0);
  const referralCount = sum(now, true);
  const comparisonCount = sum(before, true);
  return {
    data,
    summary: {
      communicated_institution_count: contacted.length,
      referral_count: referralCount,
      comparison_referral_count: comparisonCount,
      non_communicated_referral_change_rate: changeRate(sum(now, false), sum(before, false)),
      communicated_referral_change_rate: changeRate(referralCount, comparisonCount),
    },
  };
}
