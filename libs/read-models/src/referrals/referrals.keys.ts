/**
 * The keys the referrals projection and its two companions (owners' settings, withdrawals) pass between them. A leaf
 * module: the projection imports both companions, so they cannot import it back.
 */

export type Kind = 'referral' | 'reverse' | 'admission';

/** A patient of a tenant whose stays may need linking again. */
export interface Patient {
  tenant_id: string;
  patient_key: string;
}

/** One row of the monthly rollups: what a change leaves to sum again. */
export interface RollupKey {
  tenant_id: string;
  medical_institution_id: string;
  own_department_id: string;
  month: string;
}

/** `own_department_id` of a rollup row without an own department (a primary key column cannot be null). */
export const noDepartment = '00000000-0000-0000-0000-000000000000';
