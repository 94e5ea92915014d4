import { describe, it } from 'vitest';
import type { LabelDefinition, LabelValueData } from '@renkei/domain';
import { invalid } from '../shared/decider.ts';
import { given } from '../shared/given-when-then.ts';
import { crmDecider, memoDecider, specialNoteDecider } from './medical-institution.decider.ts';

const mi = '11111111-1111-4111-8111-111111111111';
const t = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const lv = (label: string, integer: number): LabelValueData => ({
  label_id: label,
  text_value: null,
  integer_value: integer,
  date_value: null,
  time_value: null,
  selection_id: null,
  selection_ids: [],
  own_department_id: null,
  area_id: null,
});
const integerLabel = (id: string): LabelDefinition => ({
  id,
  name: `数${id.slice(-1)}`,
  componentType: 'integer',
  selections: [],
  areas: [],
});
const labels = new Map([t(1), t(2)].map((id) => [id, integerLabel(id)]));
const valuesChanged = (values: LabelValueData[], previous: LabelValueData[] = []) => ({
  type: 'MedicalInstitutionLabelValuesChanged' as const,
  data: { medical_institution_id: mi, values, removed_label_ids: [], previous, import_id: null },
});
const tagsChanged = (tagIds: string[], added: string[], removed: string[]) => ({
  type: 'MedicalInstitutionTagsChanged' as const,
  data: { medical_institution_id: mi, tag_ids: tagIds, added_tag_ids: added, removed_tag_ids: removed },
});
const phaseChanged = {
  type: 'MedicalInstitutionPhaseChanged' as const,
  data: {
    medical_institution_id: mi,
    phase_master_id: t(5),
    phase_name: '訪問済',
    previous_phase_master_id: null,
    previous_phase_name: null,
  },
};

describe('memo and special note', () => {
  it('records a change with the previous content, and nothing when unchanged', () => {
    const memo = {
      type: 'MedicalInstitutionMemoChanged' as const,
      data: { medical_institution_id: mi, content: 'a', previous_content: '' },
    };
    given(memoDecider, [memo])
      .when({ medicalInstitutionId: mi, content: 'b' })
      .then([
        {
          type: 'MedicalInstitutionMemoChanged',
          data: { medical_institution_id: mi, content: 'b', previous_content: 'a' },
        },
      ]);
    given(memoDecider, [memo]).when({ medicalInstitutionId: mi, content: 'a' }).then([]);
    given(specialNoteDecider).when({ medicalInstitutionId: mi, content: '' }).then([]);
  });
});

describe('CRM decisions', () => {
  const tag = (n: number) => ({ id: t(n), name: `タグ${n}` });

  it('given tags [1,2], setting [2,3] adds 3 and removes 1; the same set in another order is no change', () => {
    const given12 = given(crmDecider, [tagsChanged([t(1), t(2)], [t(1), t(2)], [])]);
    given12
      .when({ type: 'ChangeTags', medicalInstitutionId: mi, tags: [tag(2), tag(3)] })
      .then([tagsChanged([t(2), t(3)], [t(3)], [t(1)])]);
    given12.when({ type: 'ChangeTags', medicalInstitutionId: mi, tags: [tag(2), tag(1)] }).then([]);
  });

  it('refuses a tag that does not exist, by its position', () => {
    given(crmDecider)
      .when({ type: 'ChangeTags', medicalInstitutionId: mi, tags: [tag(1), { id: t(9), name: null }] })
      .thenRejected(invalid({ field: 'tag_ids.1', message: 'タグが見つかりません' }));
  });

  it('keeps the previous phase for the history, and refuses an unknown phase', () => {
    const masters = [{ id: t(5), name: '訪問済' }];
    given(crmDecider, [phaseChanged])
      .when({ type: 'ChangePhase', medicalInstitutionId: mi, phaseMasterId: null, phaseMasters: masters })
      .thenMatches([
        { data: { phase_master_id: null, previous_phase_master_id: t(5), previous_phase_name: '訪問済' } },
      ]);
    given(crmDecider, [phaseChanged])
      .when({ type: 'ChangePhase', medicalInstitutionId: mi, phaseMasterId: t(5), phaseMasters: masters })
      .then([]);
    given(crmDecider)
      .when({ type: 'ChangePhase', medicalInstitutionId: mi, phaseMasterId: t(6), phaseMasters: masters })
      .thenRejected(invalid({ field: 'phase_master_id', message: 'フェーズが見つかりません' }));
  });

  it('records every value sent, even one this stream already holds, and refuses a value its label cannot hold', () => {
    const when = (values: LabelValueData[]) => ({
      type: 'ChangeLabelValues' as const,
      medicalInstitutionId: mi,
      values,
      labels,
      ownDepartmentIds: new Set<string>(),
    });
    const state = [valuesChanged([lv(t(1), 1), lv(t(2), 2)])];
    // An import may have changed label 1 since (its values are on the import's stream, not this one):
    // setting 1 back must still be recorded. The projection keeps only real changes in the history.
    given(crmDecider, state)
      .when(when([lv(t(1), 1), lv(t(2), 3)]))
      .then([valuesChanged([lv(t(1), 1), lv(t(2), 3)], [lv(t(1), 1), lv(t(2), 2)])]);
    given(crmDecider, state)
      .when(when([lv(t(1), 1)]))
      .then([valuesChanged([lv(t(1), 1)], [lv(t(1), 1)])]);
    // Clearing a label this stream never set (an import set it) is recorded too.
    given(crmDecider, [])
      .when(when([{ ...lv(t(2), 0), integer_value: null }]))
      .then([
        {
          type: 'MedicalInstitutionLabelValuesChanged',
          data: { medical_institution_id: mi, values: [], removed_label_ids: [t(2)], previous: [], import_id: null },
        },
      ]);
    given(crmDecider, state)
      .when(when([lv(t(9), 1)]))
      .thenRejected(invalid({ field: 'label_values.0.label_id', message: 'ラベルが見つかりません' }));
  });
});
