import { z } from 'zod';
import { eventParser } from '../event-union.ts';

/**
 * Institution labels of a tenant: stream `medical_institution_label-<label id>`; their display order is
 * one stream per tenant, `medical_institution_label_order-<tenant id>`.
 */
export const medicalInstitutionLabelAggregate = 'medical_institution_label';
export const medicalInstitutionLabelOrderAggregate = 'medical_institution_label_order';

export const LabelComponentTypeData = z.enum([
  'text',
  'textarea',
  'integer',
  'select',
  'radio',
  'checkbox',
  'date',
  'time',
  'own_department',
  'area',
]);
export type LabelComponentTypeData = z.infer<typeof LabelComponentTypeData>;

export const LabelSelectionData = z.object({ id: z.string().uuid(), label: z.string(), order: z.number().int() });
export type LabelSelectionData = z.infer<typeof LabelSelectionData>;

export const LabelAreaData = z.object({
  id: z.string().uuid(),
  name: z.string(),
  addresses: z.array(z.object({ prefecture: z.string(), city_or_locality: z.string() })),
});
export type LabelAreaData = z.infer<typeof LabelAreaData>;

export const MedicalInstitutionLabelDefined = z.object({
  label_id: z.string().uuid(),
  name: z.string(),
  description: z.string(),
  component_type: LabelComponentTypeData,
  selections: z.array(LabelSelectionData),
  areas: z.array(LabelAreaData),
});
export type MedicalInstitutionLabelDefined = z.infer<typeof MedicalInstitutionLabelDefined>;

export const MedicalInstitutionLabelDeleted = z.object({ label_id: z.string().uuid() });
export type MedicalInstitutionLabelDeleted = z.infer<typeof MedicalInstitutionLabelDeleted>;

export const MedicalInstitutionLabelsReordered = z.object({ label_ids: z.array(z.string().uuid()) });
export type MedicalInstitutionLabelsReordered = z.infer<typeof MedicalInstitutionLabelsReordered>;

export type MedicalInstitutionLabelEvent =
  | { type: 'MedicalInstitutionLabelCreated'; data: MedicalInstitutionLabelDefined }
  | { type: 'MedicalInstitutionLabelUpdated'; data: MedicalInstitutionLabelDefined }
  | { type: 'MedicalInstitutionLabelDeleted'; data: MedicalInstitutionLabelDeleted }
  | { type: 'MedicalInstitutionLabelsReordered'; data: MedicalInstitutionLabelsReordered };

/** A stored event of a label stream as its typed union; anything else throws. */
export const parseLabelEvent = eventParser(medicalInstitutionLabelAggregate, {
  MedicalInstitutionLabelCreated: MedicalInstitutionLabelDefined,
  MedicalInstitutionLabelUpdated: MedicalInstitutionLabelDefined,
  MedicalInstitutionLabelDeleted,
});
/** A stored event of a tenant's label-order stream. */
export const parseLabelOrderEvent = eventParser(medicalInstitutionLabelOrderAggregate, {
  MedicalInstitutionLabelsReordered,
});

/** One stored label value: only the field(s) of the label's component type are set. */
export const LabelValueData = z.object({
  label_id: z.string().uuid(),
  text_value: z.string().nullable(),
  integer_value: z.number().int().nullable(),
  date_value: z.string().nullable(),
  time_value: z.string().nullable(),
  selection_id: z.string().uuid().nullable(),
  selection_ids: z.array(z.string().uuid()),
  own_department_id: z.string().uuid().nullable(),
  area_id: z.string().uuid().nullable(),
});
export type LabelValueData = z.infer<typeof LabelValueData>;
