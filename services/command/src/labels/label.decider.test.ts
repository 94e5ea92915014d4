import { describe, expect, it } from 'vitest';
import type { MedicalInstitutionLabelInput } from '@renkei/contracts';
import { invalid, notFound } from '../shared/decider.ts';
import { given } from '../shared/given-when-then.ts';
import { labelDecider, labelOrderDecider, type LabelCommand, type LabelEvent } from './label.decider.ts';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const labelId = id(1);
const ids = () => {
  let counter = 100;
  return () => id(counter++);
};
const input = (patch: Partial<MedicalInstitutionLabelInput> = {}): MedicalInstitutionLabelInput => ({
  name: '重点度',
  description: '',
  component_type: 'select',
  selections: [{ label: 'A' }, { label: 'B' }],
  areas: [],
  ...patch,
});
const define = (patch: Partial<MedicalInstitutionLabelInput> = {}, create = false): LabelCommand => ({
  type: 'DefineLabel',
  labelId,
  create,
  input: input(patch),
  newId: ids(),
});
const created: LabelEvent = {
  type: 'MedicalInstitutionLabelCreated',
  data: {
    label_id: labelId,
    name: '重点度',
    description: '',
    component_type: 'select',
    selections: [
      { id: id(100), label: 'A', order: 0 },
      { id: id(101), label: 'B', order: 1 },
    ],
    areas: [],
  },
};

describe('label decider', () => {
  it('creates a label with new choice ids in input order', () => {
    given(labelDecider).when(define({}, true)).then([created]);
  });

  it('keeps known choice ids and gives unknown ones new ids', () => {
    const [updated] = given(labelDecider, [created])
      .when(
        define({
          selections: [
            { id: id(100), label: 'A+' },
            { id: id(999), label: 'C' },
          ],
        }),
      )
      .thenMatches([
        {
          type: 'MedicalInstitutionLabelUpdated',
          data: { selections: [{ id: id(100), label: 'A+' }, { label: 'C' }] },
        },
      ]);
    expect(updated!.type === 'MedicalInstitutionLabelUpdated' && updated!.data.selections[1]!.id).not.toBe(id(999));
  });

  it('records nothing for the same input', () => {
    given(labelDecider, [created])
      .when(
        define({
          selections: [
            { id: id(100), label: 'A' },
            { id: id(101), label: 'B' },
          ],
        }),
      )
      .then([]);
  });

  it('refuses a type change, and two rows naming one choice or area id', () => {
    given(labelDecider, [created])
      .when(define({ component_type: 'text' }))
      .thenRejected(invalid({ field: 'component_type', message: '登録済みのラベルの種類は変更できません' }));
    given(labelDecider, [created])
      .when(
        define({
          selections: [
            { id: id(100), label: 'A' },
            { id: id(100), label: 'B' },
          ],
        }),
      )
      .thenRejected(invalid({ field: 'selections.1.id', message: '選択肢のIDが他の行と重複しています' }));
    const area = { id: id(7), name: '北', addresses: [] };
    given(labelDecider)
      .when(define({ component_type: 'area', selections: [], areas: [area, { ...area, name: '南' }] }, true))
      .thenRejected(invalid({ field: 'areas.1.id', message: 'エリアのIDが他の行と重複しています' }));
  });

  it('deletes a live label; a deleted or unknown one is not found', () => {
    const deleted: LabelEvent = { type: 'MedicalInstitutionLabelDeleted', data: { label_id: labelId } };
    given(labelDecider, [created]).when({ type: 'DeleteLabel', labelId }).then([deleted]);
    given(labelDecider, [created, deleted]).when({ type: 'DeleteLabel', labelId }).thenRejected(notFound());
    given(labelDecider, [created, deleted]).when(define()).thenRejected(notFound());
    given(labelDecider).when({ type: 'DeleteLabel', labelId }).thenRejected(notFound());
  });
});

describe('label order decider', () => {
  const live = new Set([id(1), id(2)]);

  it('records the new order of every live label', () => {
    given(labelOrderDecider)
      .when({ type: 'ReorderLabels', labelIds: [id(2), id(1)], liveLabelIds: live })
      .then([{ type: 'MedicalInstitutionLabelsReordered', data: { label_ids: [id(2), id(1)] } }]);
  });

  it('refuses an unknown label and an incomplete order', () => {
    given(labelOrderDecider)
      .when({ type: 'ReorderLabels', labelIds: [id(2), id(3)], liveLabelIds: live })
      .thenRejected(invalid({ field: 'label_ids.1', message: 'ラベルが見つかりません' }));
    given(labelOrderDecider)
      .when({ type: 'ReorderLabels', labelIds: [id(2)], liveLabelIds: live })
      .thenRejected(invalid({ field: 'label_ids', message: 'すべてのラベルの並び順を指定してください' }));
  });
});
