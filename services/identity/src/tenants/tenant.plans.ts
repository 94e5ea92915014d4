import { featureKeys, type FeatureKey, type Plan } from '@renkei/contracts';

/** Every plan has these (docs/decisions.md "Plans and features"). */
const core: FeatureKey[] = [
  'medical_institutions_search',
  'communications',
  'tasks',
  'accounts',
  'tags',
  'data_uploads',
  'dashboard',
  'labels',
  'medical_institution_labels',
  'communication_labels',
];
const entry: FeatureKey[] = [...core, 'sale_map', 'action_lists'];
const analysis: FeatureKey[] = [
  ...entry,
  'data_analysis',
  'reverse_referrals',
  'report',
  'medical_institution_report',
  'alerts',
];
const full: FeatureKey[] = [...analysis, 'emails', 'own_department_report', 'area_report', 'communication_report'];

/**
 * Features each plan turns on. `email_sender_restricted` is a restriction, never part of a plan; it
 * and anything else can be switched per tenant through overrides.
 */
export const planFeatures: Record<Plan, readonly FeatureKey[]> = {
  early: entry,
  starter: entry,
  beginner202112: entry,
  basic: analysis,
  growth: full,
  growth202112: full,
  standard202211: full,
  professional202112: [...full, 'diagnosis_analysis'],
};

export type FeatureOverrides = Partial<Record<FeatureKey, boolean>>;

/** The plan's features with the tenant's overrides applied, in the enumeration's order. */
export function deriveFeatures(plan: Plan, overrides: FeatureOverrides = {}): FeatureKey[] {
  const on = new Set(planFeatures[plan]);
  for (const [key, value] of Object.entries(overrides) as [FeatureKey, boolean | undefined][]) {
    if (value === true) on.add(key);
    if (value === false) on.delete(key);
  }
  return featureKeys.filter((k) => on.has(k));
}
