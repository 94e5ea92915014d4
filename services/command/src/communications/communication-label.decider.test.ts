import { describe, it } from 'vitest';
import { CommunicationLabelInput } from '@renkei/contracts';
import { invalid, notFound } from '../shared/decider.ts';
import { given } from '../shared/given-when-then.ts';
import {
  communicationLabelsDecider,
  type CommunicationLabelCommand,
  type CommunicationLabelEvent,
} from './communication-label.decider.ts';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const newIds = (start: number) => {
  let n = start;
  return () => id(n++);
};
const define = (labelId: string, body: unknown, create = true, firstNewId = 100): CommunicationLabelCommand => ({
  type: 'DefineCommunicationLabel',
  labelId,
  create,
  input: CommunicationLabelInput.parse(body),
  newId: newIds(firstNewId),
});
const select = {
  name: '面談相手',
  communication_type: 'visit',
  component_type: 'select',
  selections: [{ label: '院長' }],
};
const created: CommunicationLabelEvent = {
  type: 'CommunicationLabelCreated',
  data: {
    label_id: id(1),
    name: '面談相手',
    communication_type: 'visit',
    component_type: 'select',
    description: '',
    selections: [{ id: id(100), label: '院長', order: 0 }],
    is_required: false,
  },
};

describe('communication labels decider', () => {
  it('creates a label with new choice ids', () => {
    given(communicationLabelsDecider)
      .when(define(id(1), select))
      .then([created]);
  });

  it('keeps the ids of existing choices on an update', () => {
    given(communicationLabelsDecider, [created])
      .when(
        define(
          id(1),
          { ...select, selections: [{ id: id(100), label: '院長先生' }, { label: '事務長' }], is_required: true },
          false,
          200,
        ),
      )
      .then([
        {
          type: 'CommunicationLabelUpdated',
          data: {
            ...created.data,
            selections: [
              { id: id(100), label: '院長先生', order: 0 },
              { id: id(200), label: '事務長', order: 1 },
            ],
            is_required: true,
          },
        },
      ]);
  });

  it('refuses a name taken in the same type, but not in another', () => {
    given(communicationLabelsDecider, [created])
      .when(define(id(2), { ...select, name: '面談相手 ' }))
      .thenRejected(invalid({ field: 'name', message: 'このラベル名は既に登録されています' }));
    given(communicationLabelsDecider, [created])
      .when(define(id(2), { ...select, communication_type: 'phone' }))
      .thenMatches([{ type: 'CommunicationLabelCreated', data: { label_id: id(2), communication_type: 'phone' } }]);
  });

  it('refuses changing the component type or the communication type of a label', () => {
    given(communicationLabelsDecider, [created])
      .when(define(id(1), { ...select, component_type: 'radio' }, false))
      .thenRejected(invalid({ field: 'component_type', message: '登録済みのラベルの種類は変更できません' }));
    given(communicationLabelsDecider, [created])
      .when(define(id(1), { ...select, communication_type: 'phone' }, false))
      .thenRejected(invalid({ field: 'communication_type', message: '登録済みのラベルの活動種別は変更できません' }));
  });

  it('refuses area labels, which only institutions define', () => {
    given(communicationLabelsDecider)
      .when(define(id(1), { ...select, component_type: 'area' }))
      .thenRejected(invalid({ field: 'component_type', message: 'エリアは医療機関ラベルでのみ使えます' }));
  });

  it('deletes a label, and answers not found for an unknown one', () => {
    given(communicationLabelsDecider, [created])
      .when({ type: 'DeleteCommunicationLabel', labelId: id(1) })
      .then([{ type: 'CommunicationLabelDeleted', data: { label_id: id(1) } }]);
    given(communicationLabelsDecider)
      .when({ type: 'DeleteCommunicationLabel', labelId: id(1) })
      .thenRejected(notFound());
  });

  it('reorders when every label is listed once', () => {
    const second: CommunicationLabelEvent = { ...created, data: { ...created.data, label_id: id(2), name: '目的' } };
    given(communicationLabelsDecider, [created, second])
      .when({ type: 'ReorderCommunicationLabels', labelIds: [id(2), id(1)] })
      .then([{ type: 'CommunicationLabelsReordered', data: { label_ids: [id(2), id(1)] } }]);
    given(communicationLabelsDecider, [created, second])
      .when({ type: 'ReorderCommunicationLabels', labelIds: [id(2)] })
      .thenRejected(invalid({ field: 'label_ids', message: 'すべてのラベルの並び順を指定してください' }));
  });
});
