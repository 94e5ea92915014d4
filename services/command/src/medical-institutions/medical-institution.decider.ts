import {
  checkLabelValues,
  parseCrmEvent,
  parseMemoEvent,
  parseSpecialNoteEvent,
  type LabelDefinition,
  type LabelValueData,
} from '@renkei/domain';
import { invalid, type Decider, type Decision } from '../shared/decider.ts';

export type CrmEvent = ReturnType<typeof parseCrmEvent>;
export type MemoEvent = ReturnType<typeof parseMemoEvent>;
export type SpecialNoteEvent = ReturnType<typeof parseSpecialNoteEvent>;

/** A tenant's phase, tags and label values for one institution, folded from its crm stream. */
export interface CrmState {
  phaseMasterId: string | null;
  phaseName: string | null;
  tagIds: string[];
  labelValues: Map<string, LabelValueData>;
  /**
   * Saves of the phase and of the tags (their `If-Match` versions, 0 before the first): counted apart,
   * so a colleague's tag or label edit never makes an open phase change stale, nor the reverse.
   */
  phaseVersion: number;
  tagsVersion: number;
}

const initialCrmState = (): CrmState => ({
  phaseMasterId: null,
  phaseName: null,
  tagIds: [],
  labelValues: new Map(),
  phaseVersion: 0,
  tagsVersion: 0,
});

/**
 * Commands on the crm stream. Each carries the facts it is checked against, read by the route from
 * their own streams: the tenant's phase masters, the named tags, the labels and own departments.
 */
export type CrmCommand =
  | {
      type: 'ChangePhase';
      medicalInstitutionId: string;
      phaseMasterId: string | null;
      phaseMasters: readonly { id: string; name: string }[];
    }
  | {
      type: 'ChangeTags';
      medicalInstitutionId: string;
      /** The tags named, in input order; `name` null for a tag that does not exist (or was deleted). */
      tags: readonly { id: string; name: string | null }[];
    }
  | {
      type: 'ChangeLabelValues';
      medicalInstitutionId: string;
      values: readonly LabelValueData[];
      labels: ReadonlyMap<string, LabelDefinition>;
      ownDepartmentIds: ReadonlySet<string>;
    };

function evolveCrm(state: CrmState, event: CrmEvent): CrmState {
  switch (event.type) {
    case 'MedicalInstitutionPhaseChanged':
      return {
        ...state,
        phaseMasterId: event.data.phase_master_id,
        phaseName: event.data.phase_name,
        phaseVersion: state.phaseVersion + 1,
      };
    case 'MedicalInstitutionTagsChanged':
      return { ...state, tagIds: [...event.data.tag_ids], tagsVersion: state.tagsVersion + 1 };
    case 'MedicalInstitutionLabelValuesChanged': {
      const labelValues = new Map(state.labelValues);
      for (const id of event.data.removed_label_ids) labelValues.delete(id);
      for (const v of event.data.values) labelValues.set(v.label_id, v);
      return { ...state, labelValues };
    }
    default: {
      const never: never = event;
      return never;
    }
  }
}

function decidePhase(
  state: CrmState,
  medicalInstitutionId: string,
  phase: { id: string; name: string } | null,
): CrmEvent[] {
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

function decideTags(state: CrmState, medicalInstitutionId: string, tagIds: readonly string[]): CrmEvent[] {
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

/**
 * Every value sent and every clearing asked for is recorded, even one that looks unchanged here: an
 * import records its values on the import's own stream, not on this one, so this state may not hold
 * what the institution has now (an imported value could not be cleared, nor an older value set
 * back). The CRM projection applies the events in global order and keeps only real changes in the
 * history, with the values before from its read model; `previous` is what this stream knew.
 */
function decideLabelValues(
  state: CrmState,
  medicalInstitutionId: string,
  values: readonly LabelValueData[],
  removedLabelIds: readonly string[],
  importId: string | null = null,
): CrmEvent[] {
  if (values.length === 0 && removedLabelIds.length === 0) return [];
  const previous = [...values.map((v) => v.label_id), ...removedLabelIds]
    .map((id) => state.labelValues.get(id))
    .filter((v): v is LabelValueData => v !== undefined);
  return [
    {
      type: 'MedicalInstitutionLabelValuesChanged',
      data: {
        medical_institution_id: medicalInstitutionId,
        values: [...values],
        removed_label_ids: [...removedLabelIds],
        previous,
        import_id: importId,
      },
    },
  ];
}

function decideCrm(state: CrmState, command: CrmCommand): Decision<CrmEvent> {
  switch (command.type) {
    case 'ChangePhase': {
      if (command.phaseMasterId === null) return decidePhase(state, command.medicalInstitutionId, null);
      const phase = command.phaseMasters.find((p) => p.id === command.phaseMasterId);
      if (!phase) return invalid({ field: 'phase_master_id', message: 'フェーズが見つかりません' });
      return decidePhase(state, command.medicalInstitutionId, { id: phase.id, name: phase.name });
    }
    case 'ChangeTags': {
      const missing = command.tags.flatMap((t, i) =>
        t.name === null ? [{ field: `tag_ids.${i}`, message: 'タグが見つかりません' }] : [],
      );
      if (missing.length > 0) return invalid(...missing);
      return decideTags(
        state,
        command.medicalInstitutionId,
        command.tags.map((t) => t.id),
      );
    }
    case 'ChangeLabelValues': {
      const checked = checkLabelValues(command.values, command.labels, command.ownDepartmentIds);
      if (checked.problems.length > 0)
        return invalid(
          ...checked.problems.map((p) => ({ field: `label_values.${p.index}.${p.field}`, message: p.message })),
        );
      return decideLabelValues(state, command.medicalInstitutionId, checked.values, checked.removedLabelIds);
    }
    default: {
      const never: never = command;
      return never;
    }
  }
}

export const crmDecider: Decider<CrmState, CrmCommand, CrmEvent> = {
  initialState: initialCrmState,
  evolve: evolveCrm,
  decide: decideCrm,
  parse: parseCrmEvent,
};

/** Memo and special note: one text each; the latest content (empty while never written). */
export interface NoteCommand {
  medicalInstitutionId: string;
  content: string;
}

export const memoDecider: Decider<string, NoteCommand, MemoEvent> = {
  initialState: () => '',
  evolve: (_content, event) => event.data.content,
  decide: (current, { medicalInstitutionId, content }) =>
    current === content
      ? []
      : [
          {
            type: 'MedicalInstitutionMemoChanged',
            data: { medical_institution_id: medicalInstitutionId, content, previous_content: current },
          },
        ],
  parse: parseMemoEvent,
};

export const specialNoteDecider: Decider<string, NoteCommand, SpecialNoteEvent> = {
  initialState: () => '',
  evolve: (_content, event) => event.data.content,
  decide: (current, { medicalInstitutionId, content }) =>
    current === content
      ? []
      : [
          {
            type: 'MedicalInstitutionSpecialNoteChanged',
            data: { medical_institution_id: medicalInstitutionId, content, previous_content: current },
          },
        ],
  parse: parseSpecialNoteEvent,
};
