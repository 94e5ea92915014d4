import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { featureKeys } from '@renkei/contracts';
import type { TestAuth } from '@renkei/service-kit/testing';
import { blankCommunication } from '@renkei/domain/testing';
import { streamId } from '@renkei/event-store';
import { startQueryTest, type QueryTest } from '../testing/query-test.ts';

// The search's label conditions, one component type at a time, its institution and tag filters, and the
// 422s of conditions a label cannot meet.

let t: QueryTest;
let app: FastifyInstance;
let testAuth: TestAuth;
let record: QueryTest['record'];
let institutions: string[];

beforeAll(async () => {
  t = await startQueryTest({ master: { generated: { count: 3, seed: 11 } } });
  ({ app, testAuth, record } = t);
  institutions = (
    await sql<{ id: string }>`SELECT id FROM ref.medical_institutions ORDER BY code`.execute(t.db.kysely)
  ).rows.map((r) => r.id);
});

afterAll(async () => {
  await t?.close();
});

async function post(tenantId: string, url: string, payload: object) {
  const token = await testAuth.token({ tenantId, features: [...featureKeys] });
  return app.inject({ method: 'POST', url: `/api${url}`, headers: { authorization: `Bearer ${token}` }, payload });
}

const tenant = randomUUID();
const other = randomUUID();
const user = randomUUID();
const label = {
  text: randomUUID(),
  integer: randomUUID(),
  date: randomUUID(),
  time: randomUUID(),
  select: randomUUID(),
  radio: randomUUID(),
  checkbox: randomUUID(),
  own_department: randomUUID(),
} as const;
type Kind = keyof typeof label;
const choice = { a: randomUUID(), b: randomUUID(), c: randomUUID() };
const departments = { surgery: randomUUID(), internal: randomUUID() };
const tag = randomUUID();

const value = (kind: Kind, patch: Record<string, unknown>) => ({
  label_id: label[kind],
  text_value: null,
  integer_value: null,
  date_value: null,
  time_value: null,
  selection_id: null,
  selection_ids: [],
  own_department_id: null,
  area_id: null,
  ...patch,
});

/** Records r0…r3 of the tenant with their label values (r3 has none). */
const records: string[] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
const values = [
  [
    value('text', { text_value: '院長と面談した' }),
    value('integer', { integer_value: 5 }),
    value('date', { date_value: '2026-04-01' }),
    value('time', { time_value: '09:00' }),
    value('select', { selection_id: choice.a }),
    value('checkbox', { selection_ids: [choice.a, choice.b] }),
    value('own_department', { own_department_id: departments.surgery }),
  ],
  [
    value('text', { text_value: '事務長に挨拶' }),
    value('integer', { integer_value: 10 }),
    value('date', { date_value: '2026-04-15' }),
    value('time', { time_value: '13:30' }),
    value('radio', { selection_id: choice.c }),
    value('checkbox', { selection_ids: [choice.c] }),
    value('own_department', { own_department_id: departments.internal }),
  ],
  [
    // 9 sorts after 10 as text: a range that compared text would get r1/r2 wrong.
    value('integer', { integer_value: 9 }),
    value('date', { date_value: '2026-05-01' }),
    value('time', { time_value: '18:00' }),
    value('select', { selection_id: choice.b }),
  ],
  [],
];

beforeAll(async () => {
  for (const [kind, id] of Object.entries(label)) {
    const choices = ['select', 'radio', 'checkbox'].includes(kind);
    await record(tenant, `communication_labels-${tenant}`, 'CommunicationLabelCreated', {
      label_id: id,
      name: `ラベル${kind}`,
      communication_type: 'visit',
      component_type: kind,
      description: '',
      selections: choices ? Object.values(choice).map((s, order) => ({ id: s, label: `選択${order}`, order })) : [],
      is_required: false,
    });
  }
  for (const [i, id] of records.entries())
    await record(
      tenant,
      `communication-${id}`,
      'CommunicationCreated',
      blankCommunication(
        {
          communication_id: id,
          medical_institution_id: institutions[i % 3]!,
          user_id: user,
          acted_date: `2026-04-0${i + 1}`,
        },
        { tasks: [], label_values: values[i], is_doctor_attended: i === 1 },
      ),
    );
  // Another tenant's record with the same labels' ids and values that every condition below matches.
  await record(
    other,
    `communication-${randomUUID()}`,
    'CommunicationCreated',
    blankCommunication(
      {
        communication_id: randomUUID(),
        medical_institution_id: institutions[0]!,
        user_id: user,
        acted_date: '2026-04-01',
      },
      { tasks: [], label_values: values[0] },
    ),
  );
  await record(tenant, streamId('medical_institution_crm', institutions[1]!), 'MedicalInstitutionTagsChanged', {
    medical_institution_id: institutions[1],
    tag_ids: [tag],
    added_tag_ids: [tag],
    removed_tag_ids: [],
  });
  await t.settle();
});

async function found(body: object, tenantId = tenant): Promise<number[]> {
  const res = await post(tenantId, '/communications/search_results', { sort: 'asc', ...body });
  expect(res.statusCode, res.body).toBe(200);
  const ids = (res.json() as { data: { id: string }[] }).data.map((c) => c.id);
  return ids.map((id) => records.indexOf(id));
}
const byLabel = (kind: Kind, filter: object) => found({ label_filters: [{ label_id: label[kind], ...filter }] });

describe('communication search: label conditions', () => {
  it('text and textarea: the value contains the text', async () => {
    expect(await byLabel('text', { text: '面談' })).toEqual([0]);
    expect(await byLabel('text', { text: '挨拶' })).toEqual([1]);
    expect(await byLabel('text', { text: '電話' })).toEqual([]);
  });

  it('integer: a range compared as numbers, both ends inclusive, either end open', async () => {
    expect(await byLabel('integer', { integer_min: 5, integer_max: 9 })).toEqual([0, 2]);
    expect(await byLabel('integer', { integer_min: 9 })).toEqual([1, 2]);
    expect(await byLabel('integer', { integer_max: 9 })).toEqual([0, 2]);
    expect(await byLabel('integer', { integer_min: 10, integer_max: 10 })).toEqual([1]);
    expect(await byLabel('integer', { integer_min: 11 })).toEqual([]);
    // The text condition of before still finds the value as text.
    expect(await byLabel('integer', { text: '10' })).toEqual([1]);
  });

  it('date: a range of days, both ends inclusive', async () => {
    expect(await byLabel('date', { date_from: '2026-04-01', date_to: '2026-04-15' })).toEqual([0, 1]);
    expect(await byLabel('date', { date_from: '2026-04-02' })).toEqual([1, 2]);
    expect(await byLabel('date', { date_to: '2026-04-01' })).toEqual([0]);
    expect(await byLabel('date', { date_from: '2026-05-02' })).toEqual([]);
  });

  it('time: a range of times, both ends inclusive', async () => {
    expect(await byLabel('time', { time_from: '09:00', time_to: '13:30' })).toEqual([0, 1]);
    expect(await byLabel('time', { time_from: '13:31' })).toEqual([2]);
    expect(await byLabel('time', { time_to: '08:59' })).toEqual([]);
  });

  it('select, radio and checkbox: any of the chosen selections', async () => {
    expect(await byLabel('select', { selection_ids: [choice.a] })).toEqual([0]);
    expect(await byLabel('select', { selection_ids: [choice.a, choice.b] })).toEqual([0, 2]);
    expect(await byLabel('radio', { selection_ids: [choice.c] })).toEqual([1]);
    expect(await byLabel('radio', { selection_ids: [choice.a] })).toEqual([]);
    expect(await byLabel('checkbox', { selection_ids: [choice.b] })).toEqual([0]);
    expect(await byLabel('checkbox', { selection_ids: [choice.b, choice.c] })).toEqual([0, 1]);
  });

  it('own department: by the department id', async () => {
    expect(await byLabel('own_department', { own_department_ids: [departments.internal] })).toEqual([1]);
    expect(
      await byLabel('own_department', { own_department_ids: [departments.internal, departments.surgery] }),
    ).toEqual([0, 1]);
  });

  it('is_empty finds records without a value; several conditions all hold', async () => {
    expect(await byLabel('text', { is_empty: true })).toEqual([2, 3]);
    expect(await byLabel('select', { is_empty: true })).toEqual([1, 3]);
    expect(
      await found({
        label_filters: [
          { label_id: label.integer, integer_min: 5 },
          { label_id: label.date, date_to: '2026-04-15' },
        ],
      }),
    ).toEqual([0, 1]);
    expect(
      await found({
        label_filters: [
          { label_id: label.integer, integer_min: 5 },
          { label_id: label.time, time_from: '10:00' },
        ],
        is_doctor_attended: false,
      }),
    ).toEqual([2]);
  });

  it('filters by institutions and by institution tags', async () => {
    expect(await found({ medical_institution_ids: [institutions[0], institutions[2]] })).toEqual([0, 2, 3]);
    expect(await found({ tag_ids: [tag] })).toEqual([1]);
  });

  it("finds nothing of another tenant's, nor with another tenant's label", async () => {
    expect(await found({ label_filters: [{ label_id: label.integer, integer_min: 0 }] }, other)).toHaveLength(1);
    expect(await found({ label_filters: [{ label_id: label.integer, integer_min: 0 }] }, randomUUID())).toEqual([]);
    // A label this tenant does not have is not refused (an old link still opens); it matches nothing.
    expect(await found({ label_filters: [{ label_id: randomUUID(), integer_min: 0 }] })).toEqual([]);
  });

  it('the CSV export takes the same conditions', async () => {
    const res = await post(tenant, '/communications/search_results/export', {
      sort: 'asc',
      label_filters: [{ label_id: label.integer, integer_min: 5, integer_max: 9 }],
    });
    expect(res.statusCode, res.body).toBe(200);
    const ids = res.body
      .replace(/^\ufeff/, '')
      .trim()
      .split('\r\n')
      .slice(1)
      .map((l) => records.indexOf(l.split(',')[0]!));
    expect(ids).toEqual([0, 2]);
  });
});

describe('communication search: refused label conditions', () => {
  const refused = async (url: string, filter: object, fields: string[]) => {
    const res = await post(tenant, url, { label_filters: [{ label_id: label.text, text: '院長' }, filter] });
    expect(res.statusCode, res.body).toBe(422);
    expect((res.json() as { errors: { field: string }[] }).errors.map((e) => e.field)).toEqual(fields);
  };

  it('a reversed range names its upper end', async () => {
    const url = '/communications/search_results';
    await refused(url, { label_id: label.integer, integer_min: 10, integer_max: 9 }, ['label_filters.1.integer_max']);
    await refused(url, { label_id: label.date, date_from: '2026-04-02', date_to: '2026-04-01' }, [
      'label_filters.1.date_to',
    ]);
    await refused(url, { label_id: label.time, time_from: '10:00', time_to: '09:59' }, ['label_filters.1.time_to']);
  });

  it('a malformed value names its field', async () => {
    const url = '/communications/search_results';
    await refused(url, { label_id: label.integer, integer_min: 1.5 }, ['label_filters.1.integer_min']);
    await refused(url, { label_id: label.integer, integer_min: '5' }, ['label_filters.1.integer_min']);
    await refused(url, { label_id: label.date, date_from: '2026-02-30' }, ['label_filters.1.date_from']);
    await refused(url, { label_id: label.time, time_to: '25:00' }, ['label_filters.1.time_to']);
  });

  it("a condition the label's component type cannot meet names its field", async () => {
    const url = '/communications/search_results';
    await refused(url, { label_id: label.integer, date_from: '2026-04-01' }, ['label_filters.1.date_from']);
    await refused(url, { label_id: label.text, integer_min: 1 }, ['label_filters.1.integer_min']);
    await refused(url, { label_id: label.select, own_department_ids: [departments.surgery] }, [
      'label_filters.1.own_department_ids',
    ]);
    await refused(url, { label_id: label.own_department, text: '外科' }, ['label_filters.1.text']);
    // Two component types' fields in one condition: refused before the label is read.
    await refused(url, { label_id: label.integer, integer_min: 1, time_from: '09:00' }, ['label_filters.1.time_from']);
    // The institution's timeline and the export refuse them alike (the export before its first line).
    await refused(
      `/medical_institutions/${institutions[0]}/communications/search_results`,
      {
        label_id: label.date,
        time_from: '09:00',
      },
      ['label_filters.1.time_from'],
    );
    await refused('/communications/search_results/export', { label_id: label.date, time_from: '09:00' }, [
      'label_filters.1.time_from',
    ]);
  });
});
