import {
  AccountRegistered,
  AccountUpdated,
  eventDecoder,
  medicalInstitutionCrmEventSchemas,
  medicalInstitutionLabelEventSchemas,
  MedicalInstitutionLabelValuesImported,
  TagDeleted,
} from '@renkei/domain';
import type { ProjectionTables } from '@renkei/projections';
import type { HistoryChange, HistoryKind, medicalInstitutionCrmTables } from '../medical-institution-crm.tables.ts';

/** Every event the CRM projection reads, decoded at the boundary (unknown type or version throws). */
export const decodeCrmEvent = eventDecoder({
  ...medicalInstitutionCrmEventSchemas,
  ...medicalInstitutionLabelEventSchemas,
  MedicalInstitutionLabelValuesImported,
  AccountRegistered,
  AccountUpdated,
  TagDeleted,
});
export type CrmEvent = ReturnType<typeof decodeCrmEvent>;
export type CrmEventOf<K extends CrmEvent['type']> = Extract<CrmEvent, { type: K }>;

export type CrmTables = ProjectionTables<(typeof medicalInstitutionCrmTables)[number]['name']>;

/** The event being applied, as every part of the projection sees it. */
export interface Applied {
  readonly tenantId: string;
  readonly accountId: string | null;
  /** created_at as ISO text (what the rows store). */
  readonly at: string;
  readonly revision: number;
  /**
   * Records a line of the institution's change history for this event; `part` names it among the
   * event's lines when the event changes several institutions (its id derives from the event's and it).
   */
  history(institutionId: string, kind: HistoryKind, summary: string, changes: HistoryChange[], part?: string): void;
}

export const key = (...parts: string[]) => parts.join(':');
