import { randomUUID } from 'node:crypto';
import { describe, it } from 'vitest';
import { compactCommunication, type CommunicationFields } from '@renkei/domain';
import { projectionTest, type GivenEvent } from '@renkei/projections/testing';
import { communicationsProjection } from './communications.projection.ts';
import { tasksProjection } from '../tasks/tasks.projection.ts';
import { blankCommunication } from '@renkei/domain/testing';

const test = projectionTest(communicationsProjection);
const tasks = projectionTest(tasksProjection);

const fields = (id: string, institution: string, patch: Record<string, unknown> = {}) =>
  blankCommunication(
    { communication_id: id, medical_institution_id: institution, user_id: randomUUID(), acted_date: '2026-03-01' },
    { story: 'ｲﾝﾁｮｳと面談', ...patch },
  );

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

  it("counts each comment's edits across batches (its version) and within one", async () => {
    const [a, institution, user] = [randomUUID(), randomUUID(), randomUUID()];
    const [early, late] = [randomUUID(), randomUUID()];
    const stream = `communication-${a}`;
    const edit = (commentId: string, comment: string): GivenEvent => ({
      type: 'CommunicationCommentEdited',
      stream,
      data: { communication_id: a, comment_id: commentId, comment },
    });
    await test
      .given(
        [
          { type: 'CommunicationCreated', stream, data: { ...fields(a, institution), tasks: [] } },
          {
            type: 'CommunicationCommentAdded',
            stream,
            data: { communication_id: a, comment_id: early, user_id: user, comment: '一' },
          },
        ],
        [edit(early, '二')],
        [
          edit(early, '三'),
          edit(early, '四'),
          {
            type: 'CommunicationCommentAdded',
            stream,
            data: { communication_id: a, comment_id: late, user_id: user, comment: 'あ' },
          },
          edit(late, 'い'),
        ],
      )
      .thenRows('communication_comments', [
        { id: early, comment: '四', version: 3 },
        { id: late, comment: 'い', version: 1 },
      ]);
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
    const deletedAt = new Date('2026-11-01T09:00:00Z');
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
          { type: 'CommunicationLabelDeleted', stream: 'labels', data: { label_id: b }, at: deletedAt },
        ],
      )
      .thenRows('communication_labels', [
        { id: a, name: '訪問目的', is_required: true, sort_order: 1, version: 1, deleted_at: null },
        // A deleted label stays, flagged, to name the values its records keep.
        { id: b, name: '結果', is_required: false, sort_order: 0, version: 0, deleted_at: deletedAt },
        { id: c, name: '次回', is_required: false, sort_order: 1_000_004, version: 0, deleted_at: null },
      ]);
  });

  it('keeps the choices removed from a label, with their text, and a label deleted in the batch that made it', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const [s1, s2, s3, s4, s5] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const deletedAt = new Date('2026-11-02T09:00:00Z');
    const choice = (id: string, label: string, order: number) => ({ id, label, order });
    const label = (id: string, selections: { id: string; label: string; order: number }[]) => ({
      label_id: id,
      name: '結果',
      communication_type: 'visit',
      component_type: 'select',
      description: '',
      selections,
      is_required: false,
    });
    await test
      .given(
        [
          {
            type: 'CommunicationLabelCreated',
            stream: 'labels',
            data: label(a, [choice(s1, '良好', 0), choice(s2, '保留', 1), choice(s3, '不調', 2)]),
          },
          { type: 'CommunicationLabelCreated', stream: 'labels', data: label(b, [choice(s4, 'あり', 0)]) },
          { type: 'CommunicationLabelDeleted', stream: 'labels', data: { label_id: b }, at: deletedAt },
        ],
        // One choice removed in an earlier batch than the row, one within the batch, one choice added.
        [
          {
            type: 'CommunicationLabelUpdated',
            stream: 'labels',
            data: label(a, [choice(s1, '良好', 0), choice(s3, '不調', 1)]),
          },
        ],
        [
          {
            type: 'CommunicationLabelUpdated',
            stream: 'labels',
            data: label(a, [choice(s1, '良好', 0), choice(s3, '不調', 1), choice(s5, '新規', 2)]),
          },
          { type: 'CommunicationLabelUpdated', stream: 'labels', data: label(a, [choice(s1, '良好', 0)]) },
        ],
      )
      .thenRows('communication_labels', [
        {
          id: a,
          selections: [choice(s1, '良好', 0)],
          // Once each (in id order), with the text they had when removed.
          deleted_selections: [choice(s2, '保留', 1), choice(s3, '不調', 1), choice(s5, '新規', 2)].sort((x, y) =>
            x.id.localeCompare(y.id),
          ),
          deleted_at: null,
          version: 3,
        },
        { id: b, selections: [choice(s4, 'あり', 0)], deleted_selections: [], deleted_at: deletedAt, version: 0 },
      ]);
  });

  it('counts the label order saves of each tenant (the ETag of the label list)', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const other = randomUUID();
    const label = (id: string) => ({
      label_id: id,
      name: id.slice(0, 4),
      communication_type: 'visit',
      component_type: 'text',
      description: '',
      selections: [],
      is_required: false,
    });
    await test
      .given(
        [
          { type: 'CommunicationLabelCreated', stream: 'labels', data: label(a) },
          { type: 'CommunicationLabelCreated', stream: 'labels', data: label(b) },
          { type: 'CommunicationLabelsReordered', stream: 'labels', data: { label_ids: [b, a] } },
          { type: 'CommunicationLabelsReordered', stream: 'labels', data: { label_ids: [a, b] } },
          { type: 'CommunicationLabelsReordered', tenant: other, stream: 'other', data: { label_ids: [] } },
        ],
        [{ type: 'CommunicationLabelsReordered', stream: 'labels', data: { label_ids: [b, a] } }],
      )
      .thenRows('communication_label_orders', [
        { tenant_id: test.tenantId, order_version: 3 },
        { tenant_id: other, order_version: 1 },
      ]);
  });

  // The per-day totals against the records themselves: random creates, edits that move a record to
  // another day or type, and deletes, over several batches and two tenants.
  it('keeps the records per day and type equal to the live records, whatever the edits (property)', async () => {
    const days = ['2026-01-31', '2026-02-01', '2026-02-02', '2026-03-15'];
    const types = ['visit', 'new_visit', 'phone', 'other'];
    const tenants = [test.tenantId, randomUUID()];
    const institution = randomUUID();
    for (let run = 0; run < 5; run++) {
      let seed = 7 + run * 101;
      const rand = (n: number) => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed % n;
      };
      const live = new Map<string, { tenant: string; day: string; type: string }>();
      const known: { id: string; tenant: string }[] = [];
      const batches: GivenEvent[][] = [];
      for (let b = 0; b < 4; b++) {
        const batch: GivenEvent[] = [];
        for (let i = 0; i < 12; i++) {
          const pick = rand(10);
          const day = days[rand(days.length)]!;
          const type = types[rand(types.length)]!;
          if (pick < 5 || known.length === 0) {
            const id = randomUUID();
            const tenant = tenants[rand(tenants.length)]!;
            known.push({ id, tenant });
            live.set(id, { tenant, day, type });
            batch.push({
              type: 'CommunicationCreated',
              tenant,
              stream: `communication-${id}`,
              data: { ...fields(id, institution, { acted_date: day, communication_type: type }), tasks: [] },
            });
            continue;
          }
          const { id, tenant } = known[rand(known.length)]!;
          if (!live.has(id)) continue;
          if (pick < 8) {
            live.set(id, { tenant, day, type });
            batch.push({
              type: 'CommunicationUpdated',
              tenant,
              stream: `communication-${id}`,
              data: fields(id, institution, { acted_date: day, communication_type: type }),
            });
          } else {
            live.delete(id);
            batch.push({
              type: 'CommunicationDeleted',
              tenant,
              stream: `communication-${id}`,
              data: { communication_id: id, medical_institution_id: institution },
            });
          }
        }
        batches.push(batch);
      }
      const expected = new Map<
        string,
        { tenant_id: string; acted_date: Date; communication_type: string; record_count: number }
      >();
      for (const r of live.values()) {
        const key = `${r.tenant}:${r.day}:${r.type}`;
        const row = expected.get(key) ?? {
          tenant_id: r.tenant,
          acted_date: new Date(`${r.day}T00:00:00`),
          communication_type: r.type,
          record_count: 0,
        };
        row.record_count++;
        expected.set(key, row);
      }
      const scenario = test.given(...batches);
      await scenario.thenRows(
        'communications',
        [...live.entries()].map(([id, r]) => ({ id, tenant_id: r.tenant, communication_type: r.type })),
      );
      await scenario.thenRows('communication_day_counts', [...expected.values()]);
    }
  });

  it('inserts an import chunk set-based, with day totals and last visits, and the later writes of its records', async () => {
    const [institution, other, importId, user] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    const chunk = (records: ReturnType<typeof fields>[]) => ({
      type: 'CommunicationsImported',
      stream: `communication_import_rows-${randomUUID()}`,
      // As the worker writes them: empty fields left out.
      data: { import_id: importId, records: records.map((r) => compactCommunication(r as CommunicationFields)) },
    });
    const imported = [
      fields(a, institution, { acted_date: '2026-03-01' }),
      fields(b, institution, { acted_date: '2026-03-05' }),
      fields(c, other, { acted_date: '2026-03-05', communication_type: 'phone' }),
    ];
    const adopted = (f: ReturnType<typeof fields>) => ({
      type: 'CommunicationImportAdopted',
      stream: `communication-${f.communication_id}`,
      data: { ...f, import_id: importId, imported_at: '2026-03-06T00:00:00.000Z' },
    });
    const later: GivenEvent[] = [
      adopted(imported[0]!),
      {
        type: 'CommunicationUpdated',
        stream: `communication-${a}`,
        data: fields(a, institution, { acted_date: '2026-03-09', memo: '編集' }),
      },
      adopted(imported[1]!),
      {
        type: 'CommunicationDeleted',
        stream: `communication-${b}`,
        data: { communication_id: b, medical_institution_id: institution },
      },
      adopted(imported[2]!),
      {
        type: 'CommunicationLiked',
        stream: `communication-${c}`,
        data: { communication_id: c, user_id: user },
      },
    ];
    // In later batches, and folded into the chunk's own batch (a rebuild): the same rows.
    for (const batches of [[[chunk(imported)], later], [[chunk(imported), ...later]]] as GivenEvent[][][]) {
      const scenario = test.given(...batches);
      await scenario.thenRows('communications', [
        { id: a, acted_date: new Date('2026-03-09T00:00:00'), memo: '編集', version: 1 },
        { id: c, acted_date: new Date('2026-03-05T00:00:00'), memo: '', version: 0 },
      ]);
      await scenario.thenRows('communication_day_counts', [
        { acted_date: new Date('2026-03-09T00:00:00'), communication_type: 'visit', record_count: 1 },
        { acted_date: new Date('2026-03-05T00:00:00'), communication_type: 'phone', record_count: 1 },
      ]);
      await scenario.thenRows('mi_last_visits', [
        { medical_institution_id: institution, last_visit_date: new Date('2026-03-09T00:00:00') },
      ]);
      await scenario.thenRows('communication_likes', [{ communication_id: c, user_id: user }]);
    }
    // A chunk applied again (the same records in a second event: a replayed chunk) adds nothing.
    const twice = test.given([chunk(imported)], [chunk(imported)]);
    await twice.thenRows('communication_day_counts', [
      { acted_date: new Date('2026-03-01T00:00:00'), communication_type: 'visit', record_count: 1 },
      { acted_date: new Date('2026-03-05T00:00:00'), communication_type: 'visit', record_count: 1 },
      { acted_date: new Date('2026-03-05T00:00:00'), communication_type: 'phone', record_count: 1 },
    ]);
    await twice.thenRows('mi_last_visits', [
      { medical_institution_id: institution, last_visit_date: new Date('2026-03-05T00:00:00') },
    ]);
    await twice.thenRows('communications', [
      { id: a, version: 0, revision: -1 },
      { id: b, version: 0, revision: -1 },
      { id: c, version: 0, revision: -1 },
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
