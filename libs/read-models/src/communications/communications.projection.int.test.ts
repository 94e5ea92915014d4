import { randomUUID } from 'node:crypto';
import { describe, it } from 'vitest';
import { projectionTest } from '@renkei/projections/testing';
import { communicationsProjection } from './communications.projection.ts';
import { tasksProjection } from '../tasks/tasks.projection.ts';

const test = projectionTest(communicationsProjection);
const tasks = projectionTest(tasksProjection);

const fields = (id: string, institution: string, patch: Record<string, unknown> = {}) => ({
  communication_id: id,
  medical_institution_id: institution,
  communication_type: 'visit',
  acted_date: '2026-03-01',
  category: null,
  purpose: null,
  story: 'ｲﾝﾁｮｳと面談',
  event_name: null,
  memo: '',
  other_memo: '',
  person_in_charge_hospital: null,
  attendee: null,
  is_doctor_attended: false,
  user_id: randomUUID(),
  attachment_ids: [],
  label_values: [],
  ...patch,
});

describe('communications projection', () => {
  it('keeps each record, its version, comments and likes across batches, and drops a deleted one', async () => {
    const [a, b, institution] = [randomUUID(), randomUUID(), randomUUID()];
    const [comment, gone, user] = [randomUUID(), randomUUID(), randomUUID()];
    const stream = (id: string) => `communication-${id}`;
    await test
      .given(
        [
          { type: 'CommunicationCreated', stream: stream(a), data: { ...fields(a, institution), tasks: [] } },
          { type: 'CommunicationCreated', stream: stream(b), data: { ...fields(b, institution), tasks: [] } },
          {
            type: 'CommunicationCommentAdded',
            stream: stream(a),
            data: { communication_id: a, comment_id: comment, user_id: user, comment: '最初' },
          },
          { type: 'CommunicationLiked', stream: stream(a), data: { communication_id: a, user_id: user } },
          {
            type: 'CommunicationCommentAdded',
            stream: stream(b),
            data: { communication_id: b, comment_id: gone, user_id: user, comment: '消える' },
          },
        ],
        [
          {
            type: 'CommunicationUpdated',
            stream: stream(a),
            data: fields(a, institution, { memo: 'ﾒﾓ', communication_type: 'phone' }),
          },
          {
            type: 'CommunicationCommentEdited',
            stream: stream(a),
            data: { communication_id: a, comment_id: comment, comment: '編集後' },
          },
          { type: 'CommunicationLiked', stream: stream(a), data: { communication_id: a, user_id: user } },
          {
            type: 'CommunicationDeleted',
            stream: stream(b),
            data: { communication_id: b, medical_institution_id: institution },
          },
        ],
      )
      .thenRows('communications', [
        { id: a, communication_type: 'phone', memo: 'ﾒﾓ', version: 1, search_text: 'インチョウト面談\u0001メモ\u0001' },
      ]);
    await test
      .given(
        [
          { type: 'CommunicationCreated', stream: stream(a), data: { ...fields(a, institution), tasks: [] } },
          {
            type: 'CommunicationCommentAdded',
            stream: stream(a),
            data: { communication_id: a, comment_id: comment, user_id: user, comment: '最初' },
          },
          { type: 'CommunicationLiked', stream: stream(a), data: { communication_id: a, user_id: user } },
        ],
        [
          {
            type: 'CommunicationCommentEdited',
            stream: stream(a),
            data: { communication_id: a, comment_id: comment, comment: '編集後' },
          },
          { type: 'CommunicationLiked', stream: stream(a), data: { communication_id: a, user_id: user } },
        ],
      )
      .thenRows('communication_comments', [{ id: comment, comment: '編集後', user_id: user }]);
  });

  it('keeps the last visit of each institution from visits and new visits only', async () => {
    const [a, b, c, institution] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await test
      .given(
        [
          {
            type: 'CommunicationCreated',
            stream: `communication-${a}`,
            data: { ...fields(a, institution, { acted_date: '2026-01-10' }), tasks: [] },
          },
          {
            type: 'CommunicationCreated',
            stream: `communication-${b}`,
            data: {
              ...fields(b, institution, { acted_date: '2026-02-10', communication_type: 'new_visit' }),
              tasks: [],
            },
          },
          {
            type: 'CommunicationCreated',
            stream: `communication-${c}`,
            data: { ...fields(c, institution, { acted_date: '2026-03-10', communication_type: 'phone' }), tasks: [] },
          },
        ],
        [
          {
            type: 'CommunicationDeleted',
            stream: `communication-${b}`,
            data: { communication_id: b, medical_institution_id: institution },
          },
        ],
      )
      .thenRows('mi_last_visits', [
        { medical_institution_id: institution, last_visit_date: new Date('2026-01-10T00:00:00') },
      ]);
  });

  it('lists communication labels in their order with their versions', async () => {
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    const label = (id: string, name: string) => ({
      label_id: id,
      name,
      communication_type: 'visit',
      component_type: 'text',
      description: '',
      selections: [],
      is_required: false,
    });
    await test
      .given(
        [
          { type: 'CommunicationLabelCreated', stream: 'labels', data: label(a, '目的') },
          { type: 'CommunicationLabelCreated', stream: 'labels', data: label(b, '結果') },
          { type: 'CommunicationLabelsReordered', stream: 'labels', data: { label_ids: [b, a] } },
        ],
        [
          { type: 'CommunicationLabelUpdated', stream: 'labels', data: { ...label(a, '訪問目的'), is_required: true } },
          { type: 'CommunicationLabelCreated', stream: 'labels', data: label(c, '次回') },
          { type: 'CommunicationLabelDeleted', stream: 'labels', data: { label_id: b } },
        ],
      )
      .thenRows('communication_labels', [
        { id: a, name: '訪問目的', is_required: true, sort_order: 1, version: 1 },
        { id: c, name: '次回', is_required: false, sort_order: 1_000_004, version: 0 },
      ]);
  });

  it('fails loudly on data its schema refuses', async () => {
    await test
      .given([{ type: 'CommunicationCreated', data: { communication_id: randomUUID() } }])
      .thenFails(/CommunicationCreated/);
  });
});

describe('tasks projection', () => {
  it('adds the tasks entered with a communication and unlinks them when it is deleted', async () => {
    const [a, institution, task] = [randomUUID(), randomUUID(), randomUUID()];
    await tasks
      .given(
        [
          {
            type: 'CommunicationCreated',
            data: {
              ...fields(a, institution),
              tasks: [{ task_id: task, title: '資料送付', staff_id: null, deadline: '2026-03-08' }],
            },
          },
        ],
        [{ type: 'CommunicationDeleted', data: { communication_id: a, medical_institution_id: institution } }],
      )
      .thenRows('tasks', [
        {
          id: task,
          title: '資料送付',
          status: 'incomplete',
          communication_id: null,
          medical_institution_id: institution,
        },
      ]);
  });
});
