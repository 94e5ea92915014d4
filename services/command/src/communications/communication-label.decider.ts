import type { CommunicationLabelInput } from '@renkei/contracts';
import {
  parseCommunicationLabelEvent,
  stableJson,
  type CommunicationLabelDefinition,
  type LabelDefinition,
} from '@renkei/domain';
import { invalid, notFound, type Decider, type Decision } from '../shared/decider.ts';
import { duplicateIds, keepKnownId, normalizeLabelName } from '../labels/label.decider.ts';

export type CommunicationLabelEvent = ReturnType<typeof parseCommunicationLabelEvent>;

/** Every communication label of a tenant, in display order, with each label's number of saves. */
export interface CommunicationLabelsState {
  labels: CommunicationLabelDefinition[];
  versions: Record<string, number>;
  /** The order's version: its number of saves (0 before the first), answered as ETag. */
  orderVersion: number;
}

export type CommunicationLabelCommand =
  | {
      type: 'DefineCommunicationLabel';
      labelId: string;
      create: boolean;
      input: CommunicationLabelInput;
      newId: () => string;
    }
  | { type: 'DeleteCommunicationLabel'; labelId: string }
  | { type: 'ReorderCommunicationLabels'; labelIds: readonly string[] };

function evolve(state: CommunicationLabelsState, event: CommunicationLabelEvent): CommunicationLabelsState {
  switch (event.type) {
    case 'CommunicationLabelCreated':
      return {
        ...state,
        labels: [...state.labels, event.data],
        versions: { ...state.versions, [event.data.label_id]: 0 },
      };
    case 'CommunicationLabelUpdated':
      return {
        ...state,
        labels: state.labels.map((l) => (l.label_id === event.data.label_id ? event.data : l)),
        versions: { ...state.versions, [event.data.label_id]: (state.versions[event.data.label_id] ?? 0) + 1 },
      };
    case 'CommunicationLabelDeleted': {
      const { [event.data.label_id]: _gone, ...versions } = state.versions;
      return { ...state, labels: state.labels.filter((l) => l.label_id !== event.data.label_id), versions };
    }
    case 'CommunicationLabelsReordered': {
      const at = new Map(event.data.label_ids.map((id, i) => [id, i]));
      const labels = [...state.labels].sort(
        (a, b) => (at.get(a.label_id) ?? Infinity) - (at.get(b.label_id) ?? Infinity),
      );
      return { ...state, labels, orderVersion: state.orderVersion + 1 };
    }
    default: {
      const never: never = event;
      return never;
    }
  }
}

const choiceTypes = ['select', 'radio', 'checkbox'];

function decide(
  state: CommunicationLabelsState,
  command: CommunicationLabelCommand,
): Decision<CommunicationLabelEvent> {
  switch (command.type) {
    case 'DefineCommunicationLabel': {
      const { input, labelId } = command;
      const prev = state.labels.find((l) => l.label_id === labelId) ?? null;
      if (command.create && prev) return invalid({ field: 'id', message: 'このラベルは既に登録されています' });
      if (!command.create && !prev) return notFound();
      // Areas are defined on institution labels only; a communication label has nothing to offer.
      if (input.component_type === 'area')
        return invalid({ field: 'component_type', message: 'エリアは医療機関ラベルでのみ使えます' });
      if (prev && prev.component_type !== input.component_type)
        return invalid({ field: 'component_type', message: '登録済みのラベルの種類は変更できません' });
      // Values are checked against the labels of their record's type: a label cannot move to another.
      if (prev && prev.communication_type !== input.communication_type)
        return invalid({ field: 'communication_type', message: '登録済みのラベルの活動種別は変更できません' });
      const name = normalizeLabelName(input.name);
      const taken = state.labels.some(
        (l) =>
          l.label_id !== labelId &&
          l.communication_type === input.communication_type &&
          normalizeLabelName(l.name) === name,
      );
      if (taken) return invalid({ field: 'name', message: 'このラベル名は既に登録されています' });
      const usesChoices = choiceTypes.includes(input.component_type);
      const duplicates = usesChoices ? duplicateIds(input.selections, 'selections', '選択肢') : [];
      if (duplicates.length > 0) return invalid(...duplicates);
      const keep = keepKnownId(command.newId);
      const definition: CommunicationLabelDefinition = {
        label_id: labelId,
        name: input.name,
        communication_type: input.communication_type,
        component_type: input.component_type,
        description: input.description,
        selections: usesChoices
          ? input.selections.map((s, order) => ({ id: keep(s.id, prev?.selections ?? []), label: s.label, order }))
          : [],
        is_required: input.is_required,
      };
      if (prev && stableJson(prev) === stableJson(definition)) return [];
      return [{ type: prev ? 'CommunicationLabelUpdated' : 'CommunicationLabelCreated', data: definition }];
    }
    case 'DeleteCommunicationLabel':
      if (!state.labels.some((l) => l.label_id === command.labelId)) return notFound();
      return [{ type: 'CommunicationLabelDeleted', data: { label_id: command.labelId } }];
    case 'ReorderCommunicationLabels': {
      const live = new Set(state.labels.map((l) => l.label_id));
      const unknown = command.labelIds.flatMap((id, i) =>
        live.has(id) ? [] : [{ field: `label_ids.${i}`, message: 'ラベルが見つかりません' }],
      );
      if (unknown.length > 0) return invalid(...unknown);
      if (command.labelIds.length !== live.size)
        return invalid({ field: 'label_ids', message: 'すべてのラベルの並び順を指定してください' });
      if (state.labels.every((l, i) => l.label_id === command.labelIds[i])) return [];
      return [{ type: 'CommunicationLabelsReordered', data: { label_ids: [...command.labelIds] } }];
    }
    default: {
      const never: never = command;
      return never;
    }
  }
}

export const communicationLabelsDecider: Decider<
  CommunicationLabelsState,
  CommunicationLabelCommand,
  CommunicationLabelEvent
> = {
  initialState: () => ({ labels: [], versions: {}, orderVersion: 0 }),
  evolve,
  decide,
  parse: parseCommunicationLabelEvent,
};

/** A communication label as `checkLabelValues` reads it. */
export const toLabelDefinition = (d: CommunicationLabelDefinition): LabelDefinition => ({
  id: d.label_id,
  name: d.name,
  componentType: d.component_type,
  selections: d.selections,
  areas: [],
});
