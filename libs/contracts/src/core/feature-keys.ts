// Plain values only (no zod): the web's entry chunk imports these through `@renkei/contracts/client`.
/** The feature flag enumeration of spec §3. */
export const featureKeys = [
  'medical_institutions_search',
  'sale_map',
  'data_analysis',
  'action_lists',
  'emails',
  'communications',
  'alerts',
  'tasks',
  'accounts',
  'tags',
  'data_uploads',
  'reverse_referrals',
  'report',
  'medical_institution_report',
  'own_department_report',
  'area_report',
  'communication_report',
  'dashboard',
  'labels',
  'medical_institution_labels',
  'communication_labels',
  'diagnosis_analysis',
  'email_sender_restricted',
] as const;
export const plans = [
  'standard202211',
  'early',
  'starter',
  'basic',
  'growth',
  'beginner202112',
  'growth202112',
  'professional202112',
] as const;
export const roles = ['owner', 'member'] as const;

/** The client's menu keys (spec §3) and the feature each needs. */
export const menuFeature = {
  DataAnalysis: 'data_analysis',
  SaleMap: 'sale_map',
  Dashboard: 'dashboard',
  Report: 'report',
  MedicalInstitutionsSearch: 'medical_institutions_search',
  Communications: 'communications',
  Tasks: 'tasks',
  ActionLists: 'action_lists',
  Alerts: 'alerts',
  Emails: 'emails',
  Labels: 'labels',
  Tags: 'tags',
  Accounts: 'accounts',
} as const satisfies Record<string, (typeof featureKeys)[number]>;
export type MenuKey = keyof typeof menuFeature;
