import type { FieldError, VocInput } from '@renkei/contracts';
import { parseVocEvent, stableJson, type VocFields } from '@renkei/domain';
import { invalid, notFound, type Decider, type Decision } from '../shared/decider.ts';

export type VocEvent = ReturnType<typeof parseVocEvent>;

export interface VocState {
  status: 'absent' | 'active' | 'deleted';
  fields: VocFields | null;
}

/** Facts from other streams a VOC's input is checked against (read by the route). */
export interface VocFacts {
  /** The input's institution is in the shared master. */
  institutionExists: boolean;
  /** Accounts of the tenant among the ids the input names. */
  accountIds: ReadonlySet<string>;
  /** The tenant's VOC groups. */
  groupIds: ReadonlySet<string>;
  /** Live communications of the tenant among those the input names, with their institution. */
  communications: ReadonlyMap<string, { medical_institution_id: string }>;
}

export type VocCommand =
  | { type: 'CreateVoc'; vocId: string; callerId: string; input: VocInput; facts: VocFacts }
  | { type: 'UpdateVoc'; vocId: string; callerId: string; input: VocInput; facts: VocFacts }
  | { type: 'DeleteVoc'; vocId: string }
  /** Links or unlinks one communication (from the communication's side); its institution must match. */
  | { type: 'LinkCommunication'; vocId: string; communicationId: string; linked: boolean };

function evolve(state: VocState, event: VocEvent): VocState {
  switch (event.type) {
    case 'VocCreated':
    case 'VocUpdated':
      return { status: 'active', fields: event.data };
    case 'VocCommunicationsChanged':
      return { ...state, fields: { ...state.fields!, communication_ids: event.data.communication_ids } };
    case 'VocDeleted':
      return { ...state, status: 'deleted' };
    default: {
      const never: never = event;
      return never;
    }
  }
}

function fieldsOf(
  vocId: string,
  userId: string,
  input: VocInput,
  facts: VocFacts,
  /** The VOC as it is (an edit): keeping who heard it is not checked again. */
  prev: VocFields | null = null,
): VocFields | FieldError[] {
  const errors: FieldError[] = [];
  if (!facts.institutionExists) errors.push({ field: 'medical_institution_id', message: '医療機関が見つかりません' });
  if (userId !== prev?.user_id && !facts.accountIds.has(userId))
    errors.push({ field: 'user_id', message: '担当者が見つかりません' });
  if (input.voc_group_id !== null && !facts.groupIds.has(input.voc_group_id))
    errors.push({ field: 'voc_group_id', message: 'VOCグループが見つかりません' });
  const communicationIds = [...new Set(input.communication_ids)];
  input.communication_ids.forEach((id, i) => {
    const found = facts.communications.get(id);
    if (!found) errors.push({ field: `communication_ids.${i}`, message: '活動記録が見つかりません' });
    else if (found.medical_institution_id !== input.medical_institution_id)
      errors.push({ field: `communication_ids.${i}`, message: '別の医療機関の活動記録は紐づけられません' });
  });
  if (errors.length > 0) return errors;
  return {
    voc_id: vocId,
    medical_institution_id: input.medical_institution_id,
    title: input.title,
    reported_date: input.reported_date,
    status: input.status,
    priority: input.priority,
    detail_text: input.detail_text,
    action_text: input.action_text,
    user_id: userId,
    voc_group_id: input.voc_group_id,
    communication_ids: communicationIds,
  };
}

function decide(state: VocState, command: VocCommand): Decision<VocEvent> {
  switch (command.type) {
    case 'CreateVoc': {
      if (state.status !== 'absent') return invalid({ field: 'id', message: 'このVOCは既に登録されています' });
      const fields = fieldsOf(command.vocId, command.input.user_id ?? command.callerId, command.input, command.facts);
      if (Array.isArray(fields)) return invalid(...fields);
      return [{ type: 'VocCreated', data: fields }];
    }
    case 'UpdateVoc': {
      if (state.status !== 'active') return notFound();
      const prev = state.fields!;
      // An edit that names nobody keeps who heard it, not the editor.
      const userId = command.input.user_id ?? prev.user_id ?? command.callerId;
      const fields = fieldsOf(command.vocId, userId, command.input, command.facts, prev);
      if (Array.isArray(fields)) return invalid(...fields);
      if (stableJson(fields) === stableJson(prev)) return [];
      return [{ type: 'VocUpdated', data: fields }];
    }
    case 'DeleteVoc':
      if (state.status !== 'active') return notFound();
      return [
        {
          type: 'VocDeleted',
          data: { voc_id: command.vocId, medical_institution_id: state.fields!.medical_institution_id },
        },
      ];
    case 'LinkCommunication': {
      if (state.status !== 'active') return notFound();
      const current = state.fields!.communication_ids;
      const has = current.includes(command.communicationId);
      if (has === command.linked) return [];
      const communicationIds = command.linked
        ? [...current, command.communicationId]
        : current.filter((id) => id !== command.communicationId);
      return [
        { type: 'VocCommunicationsChanged', data: { voc_id: command.vocId, communication_ids: communicationIds } },
      ];
    }
    default: {
      const never: never = command;
      return never;
    }
  }
}

export const vocDecider: Decider<VocState, VocCommand, VocEvent> = {
  initialState: () => ({ status: 'absent', fields: null }),
  evolve,
  decide,
  parse: parseVocEvent,
};
