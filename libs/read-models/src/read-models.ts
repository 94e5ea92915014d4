import type { TagsTables } from './tags/tags.tables.ts';
import type { MedicalInstitutionCrmTables } from './medical-institutions/medical-institution-crm.tables.ts';
import type { LabelValueImportsTables } from './imports/label-value-imports.tables.ts';
import type { TenantSettingsTables } from './tenant-settings/tenant-settings.tables.ts';
import type { EmailsTables } from './emails/emails.tables.ts';
import type { ReferralsTables } from './referrals/referrals.tables.ts';
import type { ReferralSettingsTables } from './referrals/referral-settings.tables.ts';
import type { ReferralDayAndMdcRollupsTables } from './referrals/referrals.daily-rollups.ts';
import type { ReferralAttributeRollupsTables } from './referrals/referrals.attribute-rollups.ts';
import type { CommunicationsTables } from './communications/communications.tables.ts';
import type { TasksTables } from './tasks/tasks.tables.ts';
import type { VocsTables } from './vocs/vocs.tables.ts';
import type { CommunicationImportsTables } from './imports/communication-imports.tables.ts';
import type { VisitRollupsTables } from './visit-rollups/visit-rollups.tables.ts';
import type { AlertsTables } from './alerts/alerts.tables.ts';
import type { ActionListsTables } from './action-lists/action-lists.tables.ts';
import type { ReportDefinitionsTables } from './reports/definitions/report-definitions.tables.ts';
import type { DashboardsTables } from './dashboards/dashboards.tables.ts';
import type { UnmatchedInstitutionDismissalsTables } from './referrals/unmatched-institution-dismissals.projection.ts';

/**
 * The Kysely `Database` of the read side: every read-model table as its view `rm.<table>` (the live
 * build), composed from the features' tables files. Projections write through the same definitions;
 * the query service reads with `Kysely<ReadModels>`.
 */
export interface ReadModels
  extends
    TagsTables,
    MedicalInstitutionCrmTables,
    LabelValueImportsTables,
    TenantSettingsTables,
    CommunicationsTables,
    TasksTables,
    EmailsTables,
    ReferralsTables,
    VocsTables,
    CommunicationImportsTables,
    VisitRollupsTables,
    ReferralSettingsTables,
    ReferralDayAndMdcRollupsTables,
    ReferralAttributeRollupsTables,
    AlertsTables,
    ActionListsTables,
    ReportDefinitionsTables,
    DashboardsTables,
    UnmatchedInstitutionDismissalsTables {}
