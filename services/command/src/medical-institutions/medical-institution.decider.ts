import {
  stableJson,
  type LabelValueData,
  type MedicalInstitutionCrmEvent,
  type MedicalInstitutionNoteChanged,
} from '@renkei/domain';

/** A tenant's phase, tags and label values for one institution, folded from its crm stream. */
export interface CrmState {
  phaseMasterId: string | null;
  phaseName: string | null;
  tagIds: string[];
  labelValues: Map<string, LabelValueData>;
}

export const initialCrmState = (): CrmState => ({
  phaseMasterId: null,
  phaseName: null,
  tagIds: [],
  labelValues: new Map(),
});

export function evolveCrm(state: CrmState, event: MedicalInstitutionCrmEvent): CrmState {
  switch (event.type) {
    case 'MedicalInstitutionPhaseChanged':
      return { ...state, phaseMasterId: event.data.phase_master_id, phaseName: event.data.phase_name };
    case 'MedicalInstitutionTagsChanged':
      return { ...state, tagIds: [...event.data.tag_ids] };
    case 'MedicalInstitutionLabelValuesChanged': {
      const labelValues = new Map(state.labelValues);
      for (const id of event.data.removed_label_ids) labelValues.delete(id);
      for (const v of event.data.values) labelValues.set(v.label_id, v);
      return { ...state, labelValues };
    }
    default:
      return state;
  }
}

export function foldCrm(events: readonly { type: string; data: unknown }[]): CrmState {
  return events.reduce((s, e) => evolveCrm(s, e as MedicalInstitutionCrmEvent), initialCrmState());
}

/** Memo / special note: the latest content (empty while never written). */
export function foldNote(events: readonly { data: unknown }[]): string {
  const last = events[events.length - 1];
  return last ? (last.data as MedicalInstitutionNoteChanged).content : '';
}

export function decideNote(
  kind: 'memo' | 'special_note',
  medicalInstitutionId: string,
  current: string,
  content: string,
): MedicalInstitutionCrmEvent[] {
  if (current === content) return [];
  const data = { medical_institution_id: medicalInstitutionId, content, previous_content: current };
  return [
    kind === 'memo'
      ? { type: 'MedicalInstitutionMemoChanged', data }
      : { type: 'MedicalInstitutionSpecialNoteChanged', data },
  ];
}

export function decidePhase(
  state: CrmState,
  medicalInstitutionId: string,
  phase: { id: string; name: string } | null,
): MedicalInstitutionCrmEvent[] {
  if ((phase?.id ?? null) === state.phaseMasterId) return [];
  return [
    {
      type: 'MedicalInstitutionPhaseChanged',
      data: {
        medical_institution_id: medicalInstitutionId,
        phase_master_id: phase?.id ?? null,
        phase_name: phase?.name ?? null,
        previous_phase_master_id: state.phaseMasterId,
        previous_phase_name: state.phaseName,
      },
    },
  ];
}

export function decideTags(
  state: CrmState,
  medicalInstitutionId: string,
  tagIds: readonly string[],
): MedicalInstitutionCrmEvent[] {
  const before = new Set(state.tagIds);
  const after = new Set(tagIds);
  const added = [...after].filter((id) => !before.has(id));
  const removed = [...before].filter((id) => !after.has(id));
  if (added.length === 0 && removed.length === 0) return [];
  return [
    {
      type: 'MedicalInstitutionTagsChanged',
      data: {
        medical_institution_id: medicalInstitutionId,
        tag_ids: [...after],
        added_tag_ids: added,
        removed_tag_ids: removed,
      },
    },
  ];
}

const same = (a: LabelValueData | undefined, b: LabelValueData) => a !== undefined && stableJson(a) === stableJson(b);

/** Only labels whose value really changes are recorded; the rest of the institution's values stay. */
export function decideLabelValues(
  state: CrmState,
  medicalInstitutionId: string,
  values: readonly LabelValueData[],
  removedLabelIds: readonly string[],
  importId: string | null = null,
): MedicalInstitutionCrmEvent[] {
  const changed = values.filter((v) => !same(state.labelValues.get(v.label_id), v));
  const removed = removedLabelIds.filter((id) => state.labelValues.has(id));
  if (changed.length === 0 && removed.length === 0) return [];
  const previous = [...changed.map((v) => v.label_id), ...removed]
    .map((id) => state.labelValues.get(id))
    .filter((v): v is LabelValueData => v !== undefined);
  return [
    {
      type: 'MedicalInstitutionLabelValuesChanged',
      data: {
        medical_institution_id: medicalInstitutionId,
        values: changed,
        removed_label_ids: removed,
        previous,
        import_id: importId,
      },
    },
  ];
}
