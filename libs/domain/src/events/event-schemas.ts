import {
  DoctorFields,
  DoctorRemoved,
  MedicalInstitutionLabelValuesChanged,
  MedicalInstitutionNoteChanged,
  MedicalInstitutionPhaseChanged,
  MedicalInstitutionTagsChanged,
  OwnDepartmentsReplaced,
  PhaseMastersReplaced,
  type MedicalInstitutionCrmEvent,
} from '../medical-institutions/medical-institution.events.ts';
import {
  MedicalInstitutionLabelDefined,
  MedicalInstitutionLabelDeleted,
  MedicalInstitutionLabelsReordered,
  type MedicalInstitutionLabelEvent,
} from '../labels/label.events.ts';
import {
  LabelValueImportChunkProcessed,
  LabelValueImportFinished,
  LabelValueImportRequested,
  LabelValueImportStarted,
  MedicalInstitutionLabelValuesImported,
  type LabelValueImportEvent,
} from '../labels/label-value-import.events.ts';
import type { DecodedEvent } from './event-decoder.ts';

/** Schemas of the events of `MedicalInstitutionCrmEvent`, by type (for `eventDecoder`). */
export const medicalInstitutionCrmEventSchemas = {
  MedicalInstitutionMemoChanged: MedicalInstitutionNoteChanged,
  MedicalInstitutionSpecialNoteChanged: MedicalInstitutionNoteChanged,
  MedicalInstitutionPhaseChanged,
  MedicalInstitutionTagsChanged,
  MedicalInstitutionLabelValuesChanged,
  DoctorAdded: DoctorFields,
  DoctorUpdated: DoctorFields,
  DoctorRemoved,
  OwnDepartmentsReplaced,
  PhaseMastersReplaced,
} as const;

/** Schemas of the events of `MedicalInstitutionLabelEvent`, by type. */
export const medicalInstitutionLabelEventSchemas = {
  MedicalInstitutionLabelCreated: MedicalInstitutionLabelDefined,
  MedicalInstitutionLabelUpdated: MedicalInstitutionLabelDefined,
  MedicalInstitutionLabelDeleted,
  MedicalInstitutionLabelsReordered,
} as const;

/** Schemas of the events of `LabelValueImportEvent`, by type. */
export const labelValueImportEventSchemas = {
  LabelValueImportRequested,
  LabelValueImportStarted,
  LabelValueImportChunkProcessed,
  MedicalInstitutionLabelValuesImported,
  LabelValueImportFinished,
} as const;

// The maps and the hand-written unions must describe the same events.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameEvents: [
  Same<DecodedEvent<typeof medicalInstitutionCrmEventSchemas>, MedicalInstitutionCrmEvent>,
  Same<DecodedEvent<typeof medicalInstitutionLabelEventSchemas>, MedicalInstitutionLabelEvent>,
  Same<DecodedEvent<typeof labelValueImportEventSchemas>, LabelValueImportEvent>,
] = [true, true, true];
void sameEvents;
