import { randomUUID } from 'node:crypto';
import type { MedicalInstitutionLabelInput } from '@renkei/contracts';
import {
  stableJson,
  type LabelDefinition,
  type MedicalInstitutionLabelDefined,
  type MedicalInstitutionLabelEvent,
} from '@renkei/domain';

export interface LabelState {
  status: 'absent' | 'active' | 'deleted';
  definition: MedicalInstitutionLabelDefined | null;
}

export function foldLabel(events: readonly { type: string; data: unknown }[]): LabelState {
  let state: LabelState = { status: 'absent', definition: null };
  for (const e of events as MedicalInstitutionLabelEvent[]) {
    switch (e.type) {
      case 'MedicalInstitutionLabelCreated':
      case 'MedicalInstitutionLabelUpdated':
        state = { status: 'active', definition: e.data };
        break;
      case 'MedicalInstitutionLabelDeleted':
        state = { ...state, status: 'deleted' };
        break;
      case 'MedicalInstitutionLabelsReordered':
        break;
      default: {
        const never: never = e;
        return never;
      }
    }
  }
  return state;
}

export const toLabelDefinition = (d: MedicalInstitutionLabelDefined): LabelDefinition => ({
  id: d.label_id,
  name: d.name,
  componentType: d.component_type,
  selections: d.selections,
  areas: d.areas,
});

/**
 * Builds the label's definition from the input. Choices and areas the input names by an id the label
 * already has keep it (values that chose them stay valid); other ids are new. The component type of
 * an existing label cannot change: its values would no longer fit.
 */
export function decideLabel(
  state: LabelState,
  labelId: string,
  input: MedicalInstitutionLabelInput,
  newId: () => string = randomUUID,
): MedicalInstitutionLabelEvent[] | { field: string; message: string } {
  if (state.status === 'deleted') return { field: 'id', message: 'ラベルが見つかりません' };
  const prev = state.definition;
  if (prev && prev.component_type !== input.component_type)
    return { field: 'component_type', message: '登録済みのラベルの種類は変更できません' };
  const keep = (id: string | undefined, known: readonly { id: string }[]) =>
    id && known.some((k) => k.id === id) ? id : newId();
  const usesChoices = ['select', 'radio', 'checkbox'].includes(input.component_type);
  const definition: MedicalInstitutionLabelDefined = {
    label_id: labelId,
    name: input.name,
    description: input.description,
    component_type: input.component_type,
    selections: usesChoices
      ? input.selections.map((s, order) => ({ id: keep(s.id, prev?.selections ?? []), label: s.label, order }))
      : [],
    areas:
      input.component_type === 'area'
        ? input.areas.map((a) => ({ id: keep(a.id, prev?.areas ?? []), name: a.name, addresses: a.addresses }))
        : [],
  };
  if (prev && stableJson(prev) === stableJson(definition)) return [];
  return [{ type: prev ? 'MedicalInstitutionLabelUpdated' : 'MedicalInstitutionLabelCreated', data: definition }];
}
