import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newEventMetadata, streamId, type RecordedEvent } from '@renkei/event-store';
import { medicalInstitutionCrmKey } from '@renkei/domain';
import {
  integrationEventTypes,
  integrationTopics,
  toIntegrationMessage,
  toIntegrationMessages,
} from './integration-events.ts';

const tenant = randomUUID();
const at = new Date('2025-04-01T00:00:00.000Z');

function recorded(stream: string, type: string, data: unknown): RecordedEvent {
  return {
    id: randomUUID(),
    stream,
    revision: 0,
    position: { primary: 1n, secondary: 1n },
    type,
    data,
    metadata: newEventMetadata(tenant, randomUUID()),
    created_at: at,
  };
}

describe('integration events v1', () => {
  it('publishes a tag with the v1 envelope, keyed by its aggregate id', () => {
    const tagId = randomUUID();
    const event = recorded(streamId('tag', tagId), 'TagCreated', {
      tag_id: tagId,
      name: '紹介多い',
      description: '',
      group_name: null,
    });
    const message = toIntegrationMessage(event)!;
    expect(message.topic).toBe('renkei.tag.v1');
    expect(message.key).toBe(tagId);
    expect(message.headers).toEqual({ event_id: event.id, type: 'TagCreated', 'content-type': 'application/json' });
    expect(JSON.parse(message.value)).toEqual({
      event_id: event.id,
      type: 'TagCreated',
      occurred_at: '2025-04-01T00:00:00.000Z',
      tenant_id: tenant,
      data: { tag_id: tagId, name: '紹介多い', description: '', group_name: null },
    });
  });

  it('never publishes who did it or the correlation ids', () => {
    const event = recorded(streamId('tag', randomUUID()), 'TagDeleted', { tag_id: randomUUID() });
    const value = JSON.parse(toIntegrationMessage(event)!.value) as Record<string, unknown>;
    expect(Object.keys(value).sort()).toEqual(['data', 'event_id', 'occurred_at', 'tenant_id', 'type']);
    expect(toIntegrationMessage(event)!.value).not.toContain(event.metadata.account_id!);
    expect(toIntegrationMessage(event)!.value).not.toContain(event.metadata.correlation_id);
  });

  it("keeps a doctor's contact details, profile and memo inside Renkei", () => {
    const doctorId = randomUUID();
    const institutionId = randomUUID();
    const event = recorded(streamId('doctor', doctorId), 'DoctorAdded', {
      doctor_id: doctorId,
      medical_institution_id: institutionId,
      name: '山田 太郎',
      division: '内科',
      position: '院長',
      honorific: '先生',
      email: 'yamada@clinic.example.jp',
      phone_number: '03-0000-0000',
      profile: '経歴',
      memo: '訪問時は午後',
    });
    const message = toIntegrationMessage(event)!;
    expect(message.topic).toBe('renkei.doctor.v1');
    expect(message.key).toBe(doctorId);
    expect(JSON.parse(message.value).data).toEqual({
      doctor_id: doctorId,
      medical_institution_id: institutionId,
      name: '山田 太郎',
      division: '内科',
      position: '院長',
    });
    for (const secret of ['yamada@clinic', '03-0000', '経歴', '訪問時']) expect(message.value).not.toContain(secret);
  });

  it('drops fields an internal event gains later, and previous values (the history stays inside)', () => {
    const crmKey = randomUUID();
    const institutionId = randomUUID();
    const phaseId = randomUUID();
    const event = recorded(streamId('medical_institution_crm', crmKey), 'MedicalInstitutionPhaseChanged', {
      medical_institution_id: institutionId,
      phase_master_id: phaseId,
      phase_name: '重点',
      previous_phase_master_id: null,
      previous_phase_name: null,
      added_later_internal_field: 'x',
    });
    const message = toIntegrationMessage(event)!;
    expect(message.topic).toBe('renkei.medical_institution.v1');
    expect(message.key).toBe(crmKey);
    expect(JSON.parse(message.value).data).toEqual({
      medical_institution_id: institutionId,
      phase_master_id: phaseId,
      phase_name: '重点',
    });
  });

  it('publishes an import chunk row by row, as the label-value changes a hand edit publishes', () => {
    const [labelId, importId, first, second] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const event = recorded(
      streamId('medical_institution_label_value_import', importId),
      'MedicalInstitutionLabelValuesImported',
      {
        import_id: importId,
        chunk: 0,
        imported_row_count: 2,
        failed_row_count: 0,
        errors: [],
        rows: [
          { row_number: 1, medical_institution_id: first, values: [{ label_id: labelId, integer_value: 12 }] },
          { row_number: 2, medical_institution_id: second, values: [{ label_id: labelId, integer_value: 3 }] },
        ],
      },
    );
    expect(integrationEventTypes).toContain('MedicalInstitutionLabelValuesImported');
    const messages = toIntegrationMessages(event);
    expect(messages.map((m) => m.key)).toEqual([
      medicalInstitutionCrmKey(tenant, first),
      medicalInstitutionCrmKey(tenant, second),
    ]);
    const values = messages.map((m) => JSON.parse(m.value));
    expect(values[0]).toMatchObject({
      type: 'MedicalInstitutionLabelValuesChanged',
      tenant_id: tenant,
      data: {
        medical_institution_id: first,
        removed_label_ids: [],
        values: [
          {
            label_id: labelId,
            text_value: null,
            integer_value: 12,
            date_value: null,
            time_value: null,
            selection_id: null,
            selection_ids: [],
            own_department_id: null,
            area_id: null,
          },
        ],
      },
    });
    expect(messages[0]!.topic).toBe('renkei.medical_institution.v1');
    // Ids are stable across re-deliveries and distinct per row.
    expect(toIntegrationMessages(event).map((m) => m.headers.event_id)).toEqual(
      messages.map((m) => m.headers.event_id),
    );
    expect(new Set(values.map((v) => v.event_id)).size).toBe(2);
    expect(toIntegrationMessages(recorded(streamId('x', randomUUID()), 'LabelValueImportStarted', {}))).toEqual([]);
  });

  it('publishes label values item by item, without the import that made them', () => {
    const labelId = randomUUID();
    const event = recorded(streamId('medical_institution_crm', randomUUID()), 'MedicalInstitutionLabelValuesChanged', {
      medical_institution_id: randomUUID(),
      values: [
        {
          label_id: labelId,
          text_value: '200床',
          integer_value: null,
          date_value: null,
          time_value: null,
          selection_id: null,
          selection_ids: [],
          own_department_id: null,
          area_id: null,
          extra: 'hidden',
        },
      ],
      removed_label_ids: [],
      previous: [{ label_id: labelId, text_value: '100床' }],
      import_id: randomUUID(),
    });
    const data = JSON.parse(toIntegrationMessage(event)!.value).data;
    expect(Object.keys(data).sort()).toEqual(['medical_institution_id', 'removed_label_ids', 'values']);
    expect(data.values).toEqual([
      {
        label_id: labelId,
        text_value: '200床',
        integer_value: null,
        date_value: null,
        time_value: null,
        selection_id: null,
        selection_ids: [],
        own_department_id: null,
        area_id: null,
      },
    ]);
  });

  it('does not publish identity events, free-text notes, label order or import progress', () => {
    for (const type of [
      'TenantRegistered',
      'TenantSettingsChanged',
      'AccountRegistered',
      'AccountUpdated',
      'MedicalInstitutionMemoChanged',
      'MedicalInstitutionSpecialNoteChanged',
      'MedicalInstitutionLabelsReordered',
      'LabelValueImportRequested',
      'LabelValueImportFinished',
      'SomethingAddedTomorrow',
      'constructor',
      'toString',
    ]) {
      expect(toIntegrationMessage(recorded(streamId('x', randomUUID()), type, {})), type).toBeNull();
      expect(integrationEventTypes, type).not.toContain(type);
    }
  });

  it('names every topic renkei.<aggregate>.v1', () => {
    expect(integrationTopics).toEqual([
      'renkei.doctor.v1',
      'renkei.medical_institution.v1',
      'renkei.medical_institution_label.v1',
      'renkei.own_departments.v1',
      'renkei.phase_masters.v1',
      'renkei.tag.v1',
    ]);
  });

  it('keys tenant-wide settings by the tenant', () => {
    const event = recorded(streamId('phase_masters', tenant), 'PhaseMastersReplaced', {
      phase_masters: [{ id: randomUUID(), name: '重点', description: '', internal: 1 }],
    });
    const message = toIntegrationMessage(event)!;
    expect(message.key).toBe(tenant);
    expect(Object.keys(JSON.parse(message.value).data.phase_masters[0]).sort()).toEqual(['description', 'id', 'name']);
  });
});
