import type { Projection } from '@renkei/projections';
import { tagsProjection } from './tags/tags.projection.ts';
import { medicalInstitutionCrmProjection } from './medical-institutions/medical-institution-crm.projection.ts';
import { labelValueImportsProjection } from './imports/label-value-imports.projection.ts';

/** Every read model the query service reads; the worker runs them. */
export const queryProjections: readonly Projection<any>[] = [
  tagsProjection,
  medicalInstitutionCrmProjection,
  labelValueImportsProjection,
];
