// Test fixtures only (`@renkei/domain/testing`), kept out of the package's main entry so no service
// ships them.
import type { CommunicationFields } from '../communications/communication.events.ts';
import type { VocFields } from '../vocs/voc.events.ts';

type CommunicationKeys = Pick<
  CommunicationFields,
  'communication_id' | 'medical_institution_id' | 'user_id' | 'acted_date'
>;

const blankCommunicationFields = {
  communication_type: 'visit',
  category: null,
  purpose: null,
  story: '',
  event_name: null,
  memo: '',
  other_memo: '',
  person_in_charge_hospital: null,
  attendee: null,
  is_doctor_attended: false,
  attachment_ids: [] as string[],
  label_values: [] as unknown[],
};

/**
 * A communication's fields with nothing filled in but who, where and when: a visit with empty texts,
 * no labels and no attachments. Tests that record communication events spread their own changes over
 * it, so a field added to the event has one place to get its default.
 */
export function blankCommunication<Patch extends Record<string, unknown> = Record<never, never>>(
  keys: CommunicationKeys,
  patch: Patch = {} as Patch,
): Omit<typeof blankCommunicationFields, keyof Patch> & CommunicationKeys & Patch {
  return { ...blankCommunicationFields, ...keys, ...patch };
}

type VocKeys = Pick<VocFields, 'voc_id' | 'medical_institution_id'>;

const blankVocFields = {
  title: '返書が遅い',
  reported_date: '2026-04-01',
  status: 'NOT_STARTED',
  priority: 'MIDDLE',
  detail_text: '',
  action_text: '',
  user_id: null,
  voc_group_id: null,
  communication_ids: [] as string[],
};

/** A VOC's fields for tests: not started, middle priority, linked to no communication, in no group. */
export function blankVoc<Patch extends Record<string, unknown> = Record<never, never>>(
  keys: VocKeys,
  patch: Patch = {} as Patch,
): Omit<typeof blankVocFields, keyof Patch> & VocKeys & Patch {
  return { ...blankVocFields, ...keys, ...patch };
}
