import type { Projection } from '@renkei/projections';
import { tagsProjection } from './tags/tags.projection.ts';
import { medicalInstitutionCrmProjection } from './medical-institutions/medical-institution-crm.projection.ts';
import { labelValueImportsProjection } from './imports/label-value-imports.projection.ts';
import { tenantSettingsProjection } from './tenant-settings/tenant-settings.projection.ts';

export { tagsProjection, medicalInstitutionCrmProjection, labelValueImportsProjection, tenantSettingsProjection };

/**
 * Every read model (tables in `rm`). The worker runs this list; the query service only reads the
 * tables. Lives in a lib because services never import each other.
 */
export const readModelProjections: readonly Projection<any>[] = [
  tagsProjection,
  medicalInstitutionCrmProjection,
  labelValueImportsProjection,
  tenantSettingsProjection,
];
