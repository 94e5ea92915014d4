import { z } from 'zod';
import { eventParser } from '../event-union.ts';
import { uuidV5 } from '../uuid-v5.ts';
import { LabelValueData } from '../labels/label.events.ts';

/**
 * A tenant's CRM data about one institution of the shared master. Streams are keyed by a UUIDv5 of
 * (tenant, institution) — see `medicalInstitutionCrmKey` — so no two tenants share one:
 * - `medical_institution_memo-<key>` and `medical_institution_special_note-<key>`: one text each, their
 *   revision is the version a client sends back as If-Match;
 * - `medical_institution_crm-<key>`: phase, tags and label values;
 * - `doctor-<doctor id>`: one doctor of the institution.
 * Tenant-wide settings: `own_departments-<tenant id>`, `phase_masters-<tenant id>`.
 */
export const medicalInstitutionMemoAggregate = 'medical_institution_memo';
export const medicalInstitutionSpecialNoteAggregate = 'medical_institution_special_note';
export const medicalInstitutionCrmAggregate = 'medical_institution_crm';
export const doctorAggregate = 'doctor';
export const ownDepartmentsAggregate = 'own_departments';
export const phaseMastersAggregate = 'phase_masters';

// Never change: stream ids derived from it are stored.
const crmKeyNamespace = '9d3c6f0e2b1a4c7d8e5f60718293a4b5';

/**
 * The key of a tenant's streams about one institution (UUIDv5 of tenant and institution): every
 * writer (command service, import reactor) derives the same stream, and no two tenants share one.
 */
export function medicalInstitutionCrmKey(tenantId: string, medicalInstitutionId: string): string {
  return uuidV5(crmKeyNamespace, `${tenantId}\u0000${medicalInstitutionId}`);
}

const uuid = z.string().uuid();

export const MedicalInstitutionNoteChanged = z.object({
  medical_institution_id: uuid,
  content: z.string(),
  previous_content: z.string(),
});
export type MedicalInstitutionNoteChanged = z.infer<typeof MedicalInstitutionNoteChanged>;

export const MedicalInstitutionPhaseChanged = z.object({
  medical_institution_id: uuid,
  phase_master_id: uuid.nullable(),
  phase_name: z.string().nullable(),
  previous_phase_master_id: uuid.nullable(),
  previous_phase_name: z.string().nullable(),
});
export type MedicalInstitutionPhaseChanged = z.infer<typeof MedicalInstitutionPhaseChanged>;

/** The full new set plus the difference, so tag counts can be kept by adding and subtracting. */
export const MedicalInstitutionTagsChanged = z.object({
  medical_institution_id: uuid,
  tag_ids: z.array(uuid),
  added_tag_ids: z.array(uuid),
  removed_tag_ids: z.array(uuid),
});
export type MedicalInstitutionTagsChanged = z.infer<typeof MedicalInstitutionTagsChanged>;

export const MedicalInstitutionLabelValuesChanged = z.object({
  medical_institution_id: uuid,
  /** New values of the labels that got one. */
  values: z.array(LabelValueData),
  /** Labels whose value was cleared. */
  removed_label_ids: z.array(uuid),
  /** Values before the change, for the history. */
  previous: z.array(LabelValueData),
  /** The label-value import that made the change, if any. */
  import_id: uuid.nullable(),
});
export type MedicalInstitutionLabelValuesChanged = z.infer<typeof MedicalInstitutionLabelValuesChanged>;

export const DoctorFields = z.object({
  doctor_id: uuid,
  medical_institution_id: uuid,
  name: z.string(),
  division: z.string(),
  position: z.string(),
  honorific: z.string(),
  email: z.string().nullable(),
  phone_number: z.string().nullable(),
  profile: z.string(),
  memo: z.string(),
});
export type DoctorFields = z.infer<typeof DoctorFields>;

export const DoctorRemoved = z.object({ doctor_id: uuid, medical_institution_id: uuid, name: z.string() });
export type DoctorRemoved = z.infer<typeof DoctorRemoved>;

export const OwnDepartmentsReplaced = z.object({
  own_departments: z.array(z.object({ id: uuid, name: z.string(), department_id: z.string().nullable() })),
});
export type OwnDepartmentsReplaced = z.infer<typeof OwnDepartmentsReplaced>;

/**
 * An own department's name, or a referral row's department text, as the two are matched: the worker when
 * it reads a file and the referrals projection when the list changes must agree, so both use this.
 */
export const ownDepartmentNameKey = (name: string) => name.normalize('NFKC').trim();

export const PhaseMastersReplaced = z.object({
  phase_masters: z.array(z.object({ id: uuid, name: z.string(), description: z.string() })),
});
export type PhaseMastersReplaced = z.infer<typeof PhaseMastersReplaced>;

export type MedicalInstitutionCrmEvent =
  | { type: 'MedicalInstitutionMemoChanged'; data: MedicalInstitutionNoteChanged }
  | { type: 'MedicalInstitutionSpecialNoteChanged'; data: MedicalInstitutionNoteChanged }
  | { type: 'MedicalInstitutionPhaseChanged'; data: MedicalInstitutionPhaseChanged }
  | { type: 'MedicalInstitutionTagsChanged'; data: MedicalInstitutionTagsChanged }
  | { type: 'MedicalInstitutionLabelValuesChanged'; data: MedicalInstitutionLabelValuesChanged }
  | { type: 'DoctorAdded'; data: DoctorFields }
  | { type: 'DoctorUpdated'; data: DoctorFields }
  | { type: 'DoctorRemoved'; data: DoctorRemoved }
  | { type: 'OwnDepartmentsReplaced'; data: OwnDepartmentsReplaced }
  | { type: 'PhaseMastersReplaced'; data: PhaseMastersReplaced };

export const medicalInstitutionCrmEventTypes = [
  'MedicalInstitutionMemoChanged',
  'MedicalInstitutionSpecialNoteChanged',
  'MedicalInstitutionPhaseChanged',
  'MedicalInstitutionTagsChanged',
  'MedicalInstitutionLabelValuesChanged',
  'DoctorAdded',
  'DoctorUpdated',
  'DoctorRemoved',
  'OwnDepartmentsReplaced',
  'PhaseMastersReplaced',
] as const satisfies readonly MedicalInstitutionCrmEvent['type'][];

/** Parsers of each stream family's stored events: an unknown type or version throws. */
export const parseMemoEvent = eventParser(medicalInstitutionMemoAggregate, {
  MedicalInstitutionMemoChanged: MedicalInstitutionNoteChanged,
});
export const parseSpecialNoteEvent = eventParser(medicalInstitutionSpecialNoteAggregate, {
  MedicalInstitutionSpecialNoteChanged: MedicalInstitutionNoteChanged,
});
export const parseCrmEvent = eventParser(medicalInstitutionCrmAggregate, {
  MedicalInstitutionPhaseChanged,
  MedicalInstitutionTagsChanged,
  MedicalInstitutionLabelValuesChanged,
});
export const parseDoctorEvent = eventParser(doctorAggregate, {
  DoctorAdded: DoctorFields,
  DoctorUpdated: DoctorFields,
  DoctorRemoved,
});
export const parseOwnDepartmentsEvent = eventParser(ownDepartmentsAggregate, { OwnDepartmentsReplaced });
export const parsePhaseMastersEvent = eventParser(phaseMastersAggregate, { PhaseMastersReplaced });
