import { describe, expect, it } from 'vitest';
import type { LabelValueData } from '@renkei/domain';
import {
  decideLabelValues,
  decideNote,
  decidePhase,
  decideTags,
  foldCrm,
  initialCrmState,
} from './medical-institution.decider.ts';

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

describe('CRM decisions', () => {
  it('records a memo change with the previous content, and nothing when unchanged', () => {
    expect(decideNote('memo', mi, 'a', 'b')).toEqual([
      {
        type: 'MedicalInstitutionMemoChanged',
        data: { medical_institution_id: mi, content: 'b', previous_content: 'a' },
      },
    ]);
    expect(decideNote('special_note', mi, 'a', 'a')).toEqual([]);
  });

  it('given tags [1,2], setting [2,3] adds 3 and removes 1', () => {
    const state = foldCrm(decideTags(initialCrmState(), mi, [t(1), t(2)]));
    const [event] = decideTags(state, mi, [t(2), t(3)]);
    expect(event).toMatchObject({ data: { tag_ids: [t(2), t(3)], added_tag_ids: [t(3)], removed_tag_ids: [t(1)] } });
    expect(decideTags(foldCrm([event!]), mi, [t(3), t(2)])).toEqual([]);
  });

  it('keeps the previous phase for the history', () => {
    const state = foldCrm(decidePhase(initialCrmState(), mi, { id: t(5), name: '訪問済' }));
    expect(decidePhase(state, mi, null)[0]).toMatchObject({
      data: { phase_master_id: null, previous_phase_master_id: t(5), previous_phase_name: '訪問済' },
    });
    expect(decidePhase(state, mi, { id: t(5), name: '訪問済' })).toEqual([]);
  });

  it('records only label values that change', () => {
    const state = foldCrm(decideLabelValues(initialCrmState(), mi, [lv(t(1), 1), lv(t(2), 2)], []));
    const events = decideLabelValues(state, mi, [lv(t(1), 1), lv(t(2), 3)], [t(9)]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      data: { values: [lv(t(2), 3)], removed_label_ids: [], previous: [lv(t(2), 2)] },
    });
    expect(decideLabelValues(state, mi, [lv(t(1), 1)], [])).toEqual([]);
  });
});
