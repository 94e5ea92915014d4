import { medicalInstitutionCrmKey, parseLabelValueImportEvent, uuidV5 } from '@renkei/domain';
import type { RecordedEvent } from '@renkei/event-store';

/**
 * Integration events: the public, versioned shape in which Renkei tells systems outside it what
 * happened (docs/integration-events.md). Internal events are free to change; this mapping is the
 * contract. An internal event type not listed here is never published, so a new event stays private
 * until someone decides what of it an outside system may see. Changing a published shape
 * incompatibly means a new topic version (`.v2`) beside the old one, never an edit of `.v1`.
 */
export interface IntegrationEventV1 {
  /** The internal event's id: stable across re-deliveries, consumers dedupe on it. */
  event_id: string;
  type: string;
  /** ISO 8601 UTC time the event was recorded. */
  occurred_at: string;
  tenant_id: string;
  data: Record<string, unknown>;
}

/** One Kafka record, ready to send. */
export interface IntegrationMessage {
  topic: string;
  /** The aggregate's id: one partition per aggregate, so its events stay in order. */
  key: string;
  /** JSON of an `IntegrationEventV1`. */
  value: string;
  headers: Record<string, string>;
}

interface Mapping {
  readonly topic: string;
  readonly data: (data: Record<string, unknown>) => Record<string, unknown>;
}

/** Copies only the named fields that are present: a field added to an internal event stays private. */
function pick(...keys: string[]) {
  return (data: Record<string, unknown>): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const key of keys) if (key in data) out[key] = data[key];
    return out;
  };
}

/** `pick` for each item of a list (anything else becomes an empty list). */
function pickEach(...keys: string[]) {
  const one = pick(...keys);
  return (value: unknown): Record<string, unknown>[] =>
    Array.isArray(value) ? value.map((item) => one((item ?? {}) as Record<string, unknown>)) : [];
}

const labelValues = pickEach(
  'label_id',
  'text_value',
  'integer_value',
  'date_value',
  'time_value',
  'selection_id',
  'selection_ids',
  'own_department_id',
  'area_id',
);

const tag = pick('tag_id', 'name', 'description', 'group_name');
// Doctors: who they are and where they work; contact details (email, phone), the free-text profile
// and the staff's memo about them are personal or internal and stay in Renkei.
const doctor = pick('doctor_id', 'medical_institution_id', 'name', 'division', 'position');
const label = (data: Record<string, unknown>) => ({
  ...pick('label_id', 'name', 'description', 'component_type')(data),
  selections: pickEach('id', 'label', 'order')(data.selections),
  areas: pickEach('id', 'name', 'addresses')(data.areas),
});

/**
 * Internal event type → topic and public data. Left out on purpose: identity events (staff accounts,
 * plans and limits are not an outside system's business; the tenant id is on every event), memo and
 * special-note texts (free-text internal notes), label order (display only), label-value imports (the
 * values each row sets are published as `MedicalInstitutionLabelValuesChanged`, see `importedRows`).
 */
const mappings: Readonly<Record<string, Mapping>> = {
  TagCreated: { topic: 'renkei.tag.v1', data: tag },
  TagUpdated: { topic: 'renkei.tag.v1', data: tag },
  TagDeleted: { topic: 'renkei.tag.v1', data: pick('tag_id') },

  MedicalInstitutionPhaseChanged: {
    topic: 'renkei.medical_institution.v1',
    data: pick('medical_institution_id', 'phase_master_id', 'phase_name'),
  },
  MedicalInstitutionTagsChanged: {
    topic: 'renkei.medical_institution.v1',
    data: pick('medical_institution_id', 'tag_ids', 'added_tag_ids', 'removed_tag_ids'),
  },
  MedicalInstitutionLabelValuesChanged: {
    topic: 'renkei.medical_institution.v1',
    data: (data) => ({
      ...pick('medical_institution_id', 'removed_label_ids')(data),
      values: labelValues(data.values),
    }),
  },

  DoctorAdded: { topic: 'renkei.doctor.v1', data: doctor },
  DoctorUpdated: { topic: 'renkei.doctor.v1', data: doctor },
  DoctorRemoved: { topic: 'renkei.doctor.v1', data: pick('doctor_id', 'medical_institution_id') },

  MedicalInstitutionLabelCreated: { topic: 'renkei.medical_institution_label.v1', data: label },
  MedicalInstitutionLabelUpdated: { topic: 'renkei.medical_institution_label.v1', data: label },
  MedicalInstitutionLabelDeleted: { topic: 'renkei.medical_institution_label.v1', data: pick('label_id') },

  OwnDepartmentsReplaced: {
    topic: 'renkei.own_departments.v1',
    data: (data) => ({ own_departments: pickEach('id', 'name', 'department_id')(data.own_departments) }),
  },
  PhaseMastersReplaced: {
    topic: 'renkei.phase_masters.v1',
    data: (data) => ({ phase_masters: pickEach('id', 'name', 'description')(data.phase_masters) }),
  },
};

/** A chunk of a label-value import: published row by row, as the hand edits of the same values are. */
const importedLabelValuesType = 'MedicalInstitutionLabelValuesImported';

/**
 * One `MedicalInstitutionLabelValuesChanged` per row of an import's chunk event (imports recorded one
 * such event per row before), keyed by the institution's CRM aggregate so a consumer gets an
 * institution's imported and hand-made changes in order on one partition. Ids derive from the chunk
 * event's and the row number: stable across re-deliveries.
 */
function importedRows(event: RecordedEvent): IntegrationMessage[] {
  const parsed = parseLabelValueImportEvent(event);
  if (parsed.type !== importedLabelValuesType) return [];
  const changed = mappings.MedicalInstitutionLabelValuesChanged!;
  return parsed.data.rows.map((row) => {
    const value: IntegrationEventV1 = {
      event_id: uuidV5(event.id.replaceAll('-', ''), `row:${row.row_number}`),
      type: 'MedicalInstitutionLabelValuesChanged',
      occurred_at: event.created_at.toISOString(),
      tenant_id: event.metadata.tenant_id,
      data: changed.data({
        medical_institution_id: row.medical_institution_id,
        values: row.values,
        removed_label_ids: [],
      }),
    };
    return {
      topic: changed.topic,
      key: medicalInstitutionCrmKey(event.metadata.tenant_id, row.medical_institution_id),
      value: JSON.stringify(value),
      headers: { event_id: value.event_id, type: value.type, 'content-type': 'application/json' },
    };
  });
}

/** The internal event types that are published (the relay reads only these). */
export const integrationEventTypes: readonly string[] = [...Object.keys(mappings), importedLabelValuesType];

/** The public messages of an internal event: none when its type is not published, one per row for an import's chunk. */
export function toIntegrationMessages(event: RecordedEvent): IntegrationMessage[] {
  if (event.type === importedLabelValuesType) return importedRows(event);
  const message = toIntegrationMessage(event);
  return message ? [message] : [];
}

/** Every topic the relay writes to (for operators creating topics ahead of time). */
export const integrationTopics: readonly string[] = [...new Set(Object.values(mappings).map((m) => m.topic))].sort();

/** The public form of an internal event, or null when that type is not published. */
export function toIntegrationMessage(event: RecordedEvent): IntegrationMessage | null {
  const mapping = Object.hasOwn(mappings, event.type) ? mappings[event.type] : undefined;
  if (!mapping) return null;
  const value: IntegrationEventV1 = {
    event_id: event.id,
    type: event.type,
    occurred_at: event.created_at.toISOString(),
    tenant_id: event.metadata.tenant_id,
    data: mapping.data((event.data ?? {}) as Record<string, unknown>),
  };
  return {
    topic: mapping.topic,
    key: aggregateId(event.stream),
    value: JSON.stringify(value),
    headers: { event_id: event.id, type: event.type, 'content-type': 'application/json' },
  };
}

/** `tag-<uuid>` → `<uuid>`: aggregate names never contain `-` (see `streamId`). */
function aggregateId(stream: string): string {
  const dash = stream.indexOf('-');
  return dash < 0 ? stream : stream.slice(dash + 1);
}
