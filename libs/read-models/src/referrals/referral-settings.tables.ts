import type { SegmentDefinition } from '@renkei/domain';
import { column, defineTable, type KyselyTables } from '../shared/table.ts';

/**
 * Owners' referral settings per tenant, kept by the referrals projection: the admission period its
 * join uses (no row: the default) and the segmentation setting (null columns: never saved). Versions
 * are the revisions of each setting's stream (-1: never saved), the ETag of the settings screen.
 */
export const referralSettingsTable = defineTable({
  name: 'referral_settings',
  columns: {
    tenant_id: column.uuid(),
    admission_period_days: column.int().nullable(),
    period_version: column.int().default('-1'),
    period_updated_at: column.timestamptz().nullable(),
    rest_segment_label: column.text().nullable(),
    excluded_own_department_ids: column.jsonb<string[]>().nullable(),
    segments: column.jsonb<SegmentDefinition[]>().nullable(),
    segmentation_version: column.int().default('-1'),
    segmentation_updated_at: column.timestamptz().nullable(),
  },
  primaryKey: ['tenant_id'],
});

export type ReferralSettingsTables = KyselyTables<typeof referralSettingsTable>;
