import type { FieldError, MedicalInstitutionLabelInput } from '@renkei/contracts';
import {
  parseLabelEvent,
  parseLabelOrderEvent,
  stableJson,
  type LabelDefinition,
  type MedicalInstitutionLabelDefined,
} from '@renkei/domain';
import { invalid, notFound, type Decider, type Decision } from '../shared/decider.ts';

export type LabelEvent = ReturnType<typeof parseLabelEvent>;
export type LabelOrderEvent = ReturnType<typeof parseLabelOrderEvent>;

export interface LabelState {
  status: 'absent' | 'active' | 'deleted';
  definition: MedicalInstitutionLabelDefined | null;
}

export type LabelCommand =
  | {
      type: 'DefineLabel';
      labelId: string;
      /** A new label (POST) or a change of an existing one (PUT). */
      create: boolean;
      input: MedicalInstitutionLabelInput;
      /** Ids of new choices and areas (derived ones under an Idempotency-Key). */
      newId: () => string;
    }
  | { type: 'DeleteLabel'; labelId: string };

/** How label names compare: two names the same after NFKC and trimming are one name (import headers). */
export const normalizeLabelName = (name: string): string => name.normalize('NFKC').trim();

function evolveLabel(state: LabelState, event: LabelEvent): LabelState {
  switch (event.type) {
    case 'MedicalInstitutionLabelCreated':
    case 'MedicalInstitutionLabelUpdated':
      return { status: 'active', definition: event.data };
    case 'MedicalInstitutionLabelDeleted':
      return { ...state, status: 'deleted' };
    default: {
      const never: never = event;
      return never;
    }
  }
}

export const toLabelDefinition = (d: MedicalInstitutionLabelDefined): LabelDefinition => ({
  id: d.label_id,
  name: d.name,
  componentType: d.component_type,
  selections: d.selections,
  areas: d.areas,
});

/** Two entries naming one id would become two choices (or areas) with one key. */
export function duplicateIds(items: readonly { id?: string | undefined }[], field: string, what: string): FieldError[] {
  const seen = new Set<string>();
  return items.flatMap((item, i) => {
    if (!item.id) return [];
    if (seen.has(item.id)) return [{ field: `${field}.${i}.id`, message: `${what}のIDが他の行と重複しています` }];
    seen.add(item.id);
    return [];
  });
}

/**
 * An input entry's id when the label already has it (values that chose it stay valid), else a new one.
 * Shared by institution and communication labels.
 */
export const keepKnownId =
  (newId: () => string) =>
  (id: string | undefined, known: readonly { id: string }[]): string =>
    id && known.some((k) => k.id === id) ? id : newId();

/**
 * Builds the label's definition from the input. Choices and areas the input names by an id the label
 * already has keep it (values that chose them stay valid); other ids are new. The component type of
 * an existing label cannot change: its values would no longer fit. Name uniqueness spans labels and
 * is held with the append (label-names.ts).
 */
function decideLabel(state: LabelState, command: LabelCommand): Decision<LabelEvent> {
  switch (command.type) {
    case 'DefineLabel': {
      const { input, labelId, newId } = command;
      if (command.create && state.status !== 'absent')
        return invalid({ field: 'id', message: 'このラベルは既に登録されています' });
      if (!command.create && state.status !== 'active') return notFound();
      const prev = state.definition;
      if (prev && prev.component_type !== input.component_type)
        return invalid({ field: 'component_type', message: '登録済みのラベルの種類は変更できません' });
      const usesChoices = ['select', 'radio', 'checkbox'].includes(input.component_type);
      const usesAreas = input.component_type === 'area';
      const duplicates = [
        ...(usesChoices ? duplicateIds(input.selections, 'selections', '選択肢') : []),
        ...(usesAreas ? duplicateIds(input.areas, 'areas', 'エリア') : []),
      ];
      if (duplicates.length > 0) return invalid(...duplicates);
      const keep = keepKnownId(newId);
      const definition: MedicalInstitutionLabelDefined = {
        label_id: labelId,
        name: input.name,
        description: input.description,
        component_type: input.component_type,
        selections: usesChoices
          ? input.selections.map((s, order) => ({ id: keep(s.id, prev?.selections ?? []), label: s.label, order }))
          : [],
        areas: usesAreas
          ? input.areas.map((a) => ({ id: keep(a.id, prev?.areas ?? []), name: a.name, addresses: a.addresses }))
          : [],
      };
      if (prev && stableJson(prev) === stableJson(definition)) return [];
      return [{ type: prev ? 'MedicalInstitutionLabelUpdated' : 'MedicalInstitutionLabelCreated', data: definition }];
    }
    case 'DeleteLabel':
      if (state.status !== 'active') return notFound();
      return [{ type: 'MedicalInstitutionLabelDeleted', data: { label_id: command.labelId } }];
    default: {
      const never: never = command;
      return never;
    }
  }
}

export const labelDecider: Decider<LabelState, LabelCommand, LabelEvent> = {
  initialState: () => ({ status: 'absent', definition: null }),
  evolve: evolveLabel,
  decide: decideLabel,
  parse: parseLabelEvent,
};

/**
 * The tenant's label order (one stream per tenant). The command carries the facts it is checked
 * against, read from the command side: which listed ids are live labels, and every live label.
 */
export interface ReorderLabels {
  type: 'ReorderLabels';
  labelIds: readonly string[];
  liveLabelIds: ReadonlySet<string>;
}

export const labelOrderDecider: Decider<{ labelIds: readonly string[] }, ReorderLabels, LabelOrderEvent> = {
  initialState: () => ({ labelIds: [] }),
  evolve: (_state, event) => ({ labelIds: event.data.label_ids }),
  decide: (_state, command) => {
    const unknown = command.labelIds.flatMap((id, i) =>
      command.liveLabelIds.has(id) ? [] : [{ field: `label_ids.${i}`, message: 'ラベルが見つかりません' }],
    );
    if (unknown.length > 0) return invalid(...unknown);
    const listed = new Set(command.labelIds);
    if ([...command.liveLabelIds].some((id) => !listed.has(id)))
      return invalid({ field: 'label_ids', message: 'すべてのラベルの並び順を指定してください' });
    return [{ type: 'MedicalInstitutionLabelsReordered', data: { label_ids: [...command.labelIds] } }];
  },
  parse: parseLabelOrderEvent,
};
