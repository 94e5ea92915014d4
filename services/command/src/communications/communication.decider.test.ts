import { describe, it } from 'vitest';
import { CommunicationCreateInput, CommunicationUpdateInput } from '@renkei/contracts';
import type { CommunicationLabelDefinition } from '@renkei/domain';
import { invalid, notFound } from '../shared/decider.ts';
import { given } from '../shared/given-when-then.ts';
import {
  communicationDecider,
  type CommunicationCommand,
  type CommunicationEvent,
  type CommunicationFacts,
} from './communication.decider.ts';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const communicationId = id(1);
const institutionId = id(2);
const caller = id(3);
const other = id(4);
const labelId = id(5);
const choice = id(6);
const commentId = id(7);

const requiredLabel: CommunicationLabelDefinition = {
  label_id: labelId,
  name: '面談相手',
  communication_type: 'visit',
  component_type: 'select',
  description: '',
  selections: [{ id: choice, label: '院長', order: 0 }],
  is_required: true,
};
const facts = (labels: CommunicationLabelDefinition[] = []): CommunicationFacts => ({
  labels,
  ownDepartmentIds: new Set(),
  accountIds: new Set([caller, other]),
});
const taskIds = () => {
  let n = 100;
  return () => id(n++);
};
const create = (body: unknown, labels: CommunicationLabelDefinition[] = []): CommunicationCommand => ({
  type: 'CreateCommunication',
  communicationId,
  medicalInstitutionId: institutionId,
  callerId: caller,
  input: CommunicationCreateInput.parse(body),
  facts: facts(labels),
  newTaskId: taskIds(),
});
const baseFields = {
  communication_id: communicationId,
  medical_institution_id: institutionId,
  communication_type: 'visit' as const,
  acted_date: '2026-03-31',
  category: null,
  purpose: null,
  story: '院長と面談',
  event_name: null,
  memo: '',
  other_memo: '',
  person_in_charge_hospital: null,
  attendee: null,
  is_doctor_attended: true,
  user_id: caller,
  attachment_ids: [],
  label_values: [],
};
const created: CommunicationEvent = { type: 'CommunicationCreated', data: { ...baseFields, tasks: [] } };
const visit = { communication_type: 'visit', acted_date: '2026-03-31', story: '院長と面談', is_doctor_attended: true };
const selected = {
  label_id: labelId,
  text_value: null,
  integer_value: null,
  date_value: null,
  time_value: null,
  selection_id: choice,
  selection_ids: [],
  own_department_id: null,
  area_id: null,
};

describe('communication decider', () => {
  it('creates a record acted by the caller, with its tasks', () => {
    given(communicationDecider)
      .when(create({ ...visit, tasks: [{ title: '資料送付', staff_id: other, deadline: '2026-04-07' }] }))
      .then([
        {
          type: 'CommunicationCreated',
          data: {
            ...baseFields,
            tasks: [{ task_id: id(100), title: '資料送付', staff_id: other, deadline: '2026-04-07' }],
          },
        },
      ]);
  });

  it('refuses a whole create when one task names an unknown staff member', () => {
    given(communicationDecider)
      .when(create({ ...visit, tasks: [{ title: '資料送付', staff_id: id(99) }] }))
      .thenRejected(invalid({ field: 'tasks.0.staff_id', message: 'タスクの担当者が見つかりません' }));
  });

  it('names a required label of the type that has no value', () => {
    given(communicationDecider)
      .when(create(visit, [requiredLabel]))
      .thenRejected(invalid({ field: 'label_values', message: '「面談相手」を入力してください' }));
  });

  it('requires labels only of the record’s own type', () => {
    given(communicationDecider)
      .when(create({ ...visit, communication_type: 'phone' }, [requiredLabel]))
      .thenMatches([{ type: 'CommunicationCreated', data: { communication_type: 'phone', label_values: [] } }]);
  });

  it('keeps a label value that fits its label, and refuses one that does not', () => {
    given(communicationDecider)
      .when(create({ ...visit, label_values: [{ label_id: labelId, selection_id: choice }] }, [requiredLabel]))
      .then([{ type: 'CommunicationCreated', data: { ...baseFields, label_values: [selected], tasks: [] } }]);
    given(communicationDecider)
      .when(create({ ...visit, label_values: [{ label_id: labelId, selection_id: id(98) }] }, [requiredLabel]))
      .thenRejected(invalid({ field: 'label_values.0.selection_id', message: '「面談相手」の選択肢を選んでください' }));
  });

  it('refuses an acting staff member of another tenant and attachments that do not exist', () => {
    given(communicationDecider)
      .when(create({ ...visit, user_id: id(99), attachment_ids: [id(98)] }))
      .thenRejected(
        invalid(
          { field: 'user_id', message: '担当者が見つかりません' },
          { field: 'attachment_ids.0', message: '添付ファイルが見つかりません' },
        ),
      );
  });

  it("attaches free files and its own, and refuses another record's file and a file named twice", () => {
    const files = new Map<string, string | null>([
      [id(80), null],
      [id(81), communicationId],
      [id(82), id(7)],
    ]);
    const withFiles = (body: unknown): CommunicationCommand => ({
      ...(create(body) as Extract<CommunicationCommand, { type: 'CreateCommunication' }>),
      facts: { ...facts(), files },
    });
    given(communicationDecider)
      .when(withFiles({ ...visit, attachment_ids: [id(81), id(80)] }))
      .then([{ type: 'CommunicationCreated', data: { ...baseFields, attachment_ids: [id(81), id(80)], tasks: [] } }]);
    given(communicationDecider)
      .when(withFiles({ ...visit, attachment_ids: [id(82), id(80), id(80)] }))
      .thenRejected(
        invalid(
          { field: 'attachment_ids.0', message: 'このファイルは他の活動記録に添付されています' },
          { field: 'attachment_ids.2', message: '同じファイルが重複して添付されています' },
        ),
      );
  });

  const update = (body: unknown, known: CommunicationFacts = facts()): CommunicationCommand => ({
    type: 'UpdateCommunication',
    communicationId,
    callerId: other,
    input: CommunicationUpdateInput.parse(body),
    facts: known,
  });

  it('updates the fields and keeps who acted when the edit names nobody', () => {
    given(communicationDecider, [created])
      .when(update({ ...visit, memo: '次回は部長にも' }))
      .then([{ type: 'CommunicationUpdated', data: { ...baseFields, memo: '次回は部長にも' } }]);
  });

  it('keeps who acted when the edit names nobody, though the route looked up only the editor', () => {
    // The route's facts know the accounts the input names (the editor when it names nobody).
    given(communicationDecider, [created])
      .when(update({ ...visit, memo: '追記' }, { ...facts(), accountIds: new Set([other]) }))
      .then([{ type: 'CommunicationUpdated', data: { ...baseFields, memo: '追記' } }]);
    given(communicationDecider, [created])
      .when(update({ ...visit, user_id: id(90) }, { ...facts(), accountIds: new Set([other]) }))
      .thenRejected(invalid({ field: 'user_id', message: '担当者が見つかりません' }));
  });

  it('saves nothing when nothing changed, and nothing of a deleted record', () => {
    given(communicationDecider, [created]).when(update(visit)).then([]);
    given(communicationDecider, [
      created,
      {
        type: 'CommunicationDeleted',
        data: { communication_id: communicationId, medical_institution_id: institutionId },
      },
    ])
      .when(update(visit))
      .thenRejected(notFound());
  });

  it('deletes a live record once', () => {
    given(communicationDecider, [created])
      .when({ type: 'DeleteCommunication', communicationId })
      .then([
        {
          type: 'CommunicationDeleted',
          data: { communication_id: communicationId, medical_institution_id: institutionId },
        },
      ]);
    given(communicationDecider).when({ type: 'DeleteCommunication', communicationId }).thenRejected(notFound());
  });

  const commented: CommunicationEvent = {
    type: 'CommunicationCommentAdded',
    data: { communication_id: communicationId, comment_id: commentId, user_id: caller, comment: 'お疲れさまです' },
  };

  it('adds, edits and deletes comments', () => {
    given(communicationDecider, [created])
      .when({ type: 'AddComment', communicationId, commentId, userId: caller, comment: 'お疲れさまです' })
      .then([commented]);
    given(communicationDecider, [created, commented])
      .when({ type: 'EditComment', communicationId, commentId, comment: '追記' })
      .then([
        {
          type: 'CommunicationCommentEdited',
          data: { communication_id: communicationId, comment_id: commentId, comment: '追記' },
        },
      ]);
    given(communicationDecider, [created, commented])
      .when({ type: 'DeleteComment', communicationId, commentId })
      .then([
        { type: 'CommunicationCommentDeleted', data: { communication_id: communicationId, comment_id: commentId } },
      ]);
    given(communicationDecider, [created])
      .when({ type: 'DeleteComment', communicationId, commentId })
      .thenRejected(notFound());
  });

  it('counts one like per user, however often it is sent', () => {
    const liked: CommunicationEvent = {
      type: 'CommunicationLiked',
      data: { communication_id: communicationId, user_id: other },
    };
    given(communicationDecider, [created]).when({ type: 'Like', communicationId, userId: other }).then([liked]);
    given(communicationDecider, [created, liked]).when({ type: 'Like', communicationId, userId: other }).then([]);
    given(communicationDecider, [created]).when({ type: 'Unlike', communicationId, userId: other }).then([]);
    given(communicationDecider, [created, liked])
      .when({ type: 'Unlike', communicationId, userId: other })
      .then([{ type: 'CommunicationUnliked', data: liked.data }]);
  });

  describe('values of deleted labels and choices stay readable', () => {
    const deletedLabelId = id(8);
    const keptChoice = id(9);
    const goneChoice = id(10);
    const value = (labelId: string, patch: object) => ({
      ...selected,
      label_id: labelId,
      selection_id: null,
      ...patch,
    });
    const liveLabel: CommunicationLabelDefinition = {
      ...requiredLabel,
      is_required: false,
      selections: [{ id: keptChoice, label: '部長', order: 0 }],
    };
    const ofDeleted = value(deletedLabelId, { text_value: '紹介状3通' });
    const ofGoneChoice = value(labelId, { selection_id: goneChoice });
    const stored: CommunicationEvent = {
      type: 'CommunicationCreated',
      data: { ...baseFields, tasks: [], label_values: [ofDeleted, ofGoneChoice] },
    };
    const edit = (body: Record<string, unknown>): CommunicationCommand => ({
      type: 'UpdateCommunication',
      communicationId,
      callerId: caller,
      input: CommunicationUpdateInput.parse({ ...visit, ...body }),
      facts: facts([liveLabel]),
    });

    it('keeps the value of a deleted label the edit does not mention, and a deleted choice sent back as stored', () => {
      given(communicationDecider, [stored])
        .when(edit({ memo: '追記', label_values: [ofGoneChoice] }))
        .then([
          {
            type: 'CommunicationUpdated',
            data: { ...baseFields, memo: '追記', label_values: [ofGoneChoice, ofDeleted] },
          },
        ]);
    });

    it('accepts the deleted label’s value sent back as stored, and drops it when cleared', () => {
      given(communicationDecider, [stored])
        .when(edit({ label_values: [ofDeleted, ofGoneChoice] }))
        .then([]);
      given(communicationDecider, [stored])
        .when(edit({ label_values: [value(deletedLabelId, {}), ofGoneChoice] }))
        .then([{ type: 'CommunicationUpdated', data: { ...baseFields, label_values: [ofGoneChoice] } }]);
    });

    it('refuses a new value of a deleted label or choice', () => {
      given(communicationDecider, [stored])
        .when(edit({ label_values: [value(deletedLabelId, { text_value: '別の値' })] }))
        .thenRejected(invalid({ field: 'label_values.0.label_id', message: 'ラベルが見つかりません' }));
      given(communicationDecider, [stored])
        .when(edit({ label_values: [value(labelId, { selection_id: id(11) })] }))
        .thenRejected(
          invalid({ field: 'label_values.0.selection_id', message: '「面談相手」の選択肢を選んでください' }),
        );
    });

    it('drops them when the record moves to another type, as the values of live labels of that type go', () => {
      given(communicationDecider, [stored])
        .when(edit({ communication_type: 'phone' }))
        .then([
          { type: 'CommunicationUpdated', data: { ...baseFields, communication_type: 'phone', label_values: [] } },
        ]);
    });
  });
});
