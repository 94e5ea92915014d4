import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, streamId, type EventStore, type Position } from '@renkei/event-store';
import { buildInstitutionCode, importInstitutionMaster, institutionIdFromCode } from '@renkei/institution-master';
import { startProjections, waitForPosition } from '@renkei/projections';
import { blankCommunication } from '@renkei/domain/testing';
import { communicationsProjection, medicalInstitutionCrmProjection, tasksProjection } from '../../index.ts';
import type { ReadModels } from '../../read-models.ts';
import { periodBuckets, ReportDefinitionInput } from '@renkei/contracts';
import { aggregateReport, runReport } from '../engine/report-engine.ts';
import type { ReportSourceRequest } from '../engine/report-source.ts';
import {
  communicationReportsSource,
  maxCommunicationReportRows,
  TooManyCommunicationsError,
} from './communication-reports.source.ts';

const masterRows = [
  ['新宿中央病院', '東京都新宿区西新宿2-8-1', '一般病院'],
  ['みなと内科', '静岡県静岡市葵区追手町1', '無床診療所'],
] as const;
const codes = masterRows.map((r, i) =>
  buildInstitutionCode({
    prefectureCode: r[1].startsWith('東京') ? 13 : 22,
    scoreTable: 1,
    districtNumber: 2,
    institutionNumber: 1001 + i,
  }),
);
const institutions = codes.map((c) => institutionIdFromCode(c));
const [tenantA, tenantB] = [randomUUID(), randomUUID()];
const [yamada, sato, other] = [randomUUID(), randomUUID(), randomUUID()];
const department = randomUUID();
const labels = {
  purpose: randomUUID(),
  topics: randomUUID(),
  people: randomUUID(),
  department: randomUUID(),
  note: randomUUID(),
  deleted: randomUUID(),
  otherTenant: randomUUID(),
};
const selections = {
  intro: randomUUID(),
  followUp: randomUUID(),
  beds: randomUUID(),
  staff: randomUUID(),
  equipment: randomUUID(),
};
const records = {
  full: randomUUID(),
  plain: randomUUID(),
  before: randomUUID(),
  gone: randomUUID(),
  otherTenant: randomUUID(),
};

let db: TestDatabase;
/** The test database as the sources take it. */
const readModels = () => db.kysely as unknown as Kysely<ReadModels>;
let store: EventStore;
let projections: { stop(): Promise<void> };
let last: Position | undefined;

async function append(tenantId: string, stream: string, events: { type: string; data: object }[]) {
  const metadata = {
    tenant_id: tenantId,
    account_id: null,
    correlation_id: randomUUID(),
    causation_id: null,
    schema_version: 1,
  };
  const result = await store.append(
    stream,
    events.map((e) => ({ ...e, metadata })),
    { expectedRevision: 'any' },
  );
  last = result.position;
}

const account = (tenantId: string, id: string, username: string) => ({
  type: 'AccountRegistered',
  data: {
    account_id: id,
    tenant_id: tenantId,
    username,
    email: null,
    login_name: null,
    role: 'member',
    cs_account: false,
  },
});
const label = (id: string, name: string, component_type: string, options: { id: string; label: string }[] = []) => ({
  type: 'CommunicationLabelCreated',
  data: {
    label_id: id,
    name,
    communication_type: 'visit',
    component_type,
    description: '',
    selections: options.map((o, order) => ({ ...o, order })),
    is_required: false,
  },
});
const value = (labelId: string, patch: object) => ({
  label_id: labelId,
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
const created = (id: string, fields: object, tasks: object[] = []) => ({
  type: 'CommunicationCreated',
  data: { ...fields, communication_id: id, tasks },
});

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'communication-reports-master-'));
  fs.writeFileSync(
    path.join(dir, 'm.csv'),
    masterRows.map((r, i) => `${codes[i]},${r[0]},,,${r[1]},,,,${r[2]},0,内科,,,開設`).join('\n') + '\n',
  );
  await importInstitutionMaster(db, path.join(dir, 'm.csv'));
  fs.rmSync(dir, { recursive: true, force: true });
  projections = startProjections({
    db,
    store,
    projections: [communicationsProjection, tasksProjection, medicalInstitutionCrmProjection],
  });

  await append(tenantA, streamId('account', yamada), [account(tenantA, yamada, '山田太郎')]);
  await append(tenantA, streamId('account', sato), [account(tenantA, sato, '佐藤花子')]);
  await append(tenantB, streamId('account', other), [account(tenantB, other, '他社ユーザー')]);
  await append(tenantA, streamId('own_departments', tenantA), [
    {
      type: 'OwnDepartmentsReplaced',
      data: { own_departments: [{ id: department, name: '循環器内科', department_id: null }] },
    },
  ]);
  await append(tenantA, streamId('communication_labels', tenantA), [
    label(labels.purpose, '訪問目的区分', 'select', [
      { id: selections.intro, label: '挨拶' },
      { id: selections.followUp, label: '紹介御礼' },
    ]),
    label(labels.topics, '話題', 'checkbox', [
      { id: selections.beds, label: '病床' },
      { id: selections.staff, label: '人員' },
      { id: selections.equipment, label: '設備' },
    ]),
    label(labels.people, '面談人数', 'integer'),
    label(labels.department, '関連診療科', 'own_department'),
    label(labels.note, '備考', 'text'),
    label(labels.deleted, '旧項目', 'text'),
    { type: 'CommunicationLabelDeleted', data: { label_id: labels.deleted } },
  ]);
  await append(tenantB, streamId('communication_labels', tenantB), [label(labels.otherTenant, '他社ラベル', 'text')]);

  const base = (institution: string, user: string, acted_date: string) =>
    blankCommunication({ communication_id: '', medical_institution_id: institution, user_id: user, acted_date });
  await append(tenantA, streamId('communication', records.full), [
    created(
      records.full,
      {
        ...base(institutions[0]!, yamada, '2025-04-10'),
        category: '定期訪問',
        purpose: '紹介依頼',
        story: '院長と面談',
        person_in_charge_hospital: '鈴木院長',
        is_doctor_attended: true,
        label_values: [
          value(labels.purpose, { selection_id: selections.followUp }),
          value(labels.topics, { selection_ids: [selections.equipment, selections.beds] }),
          value(labels.people, { integer_value: 3 }),
          value(labels.department, { own_department_id: department }),
          value(labels.note, { text_value: '次回は来月' }),
          value(labels.deleted, { text_value: '消えた値' }),
        ],
      },
      [
        { task_id: randomUUID(), title: '資料送付', staff_id: null, deadline: null },
        { task_id: randomUUID(), title: '再訪', staff_id: yamada, deadline: '2025-05-01' },
      ],
    ),
    {
      type: 'CommunicationCommentAdded',
      data: { communication_id: records.full, comment_id: randomUUID(), user_id: sato, comment: 'よい' },
    },
    { type: 'CommunicationLiked', data: { communication_id: records.full, user_id: sato } },
    { type: 'CommunicationLiked', data: { communication_id: records.full, user_id: yamada } },
  ]);
  await append(tenantA, streamId('communication', records.plain), [
    created(records.plain, {
      ...base(institutions[1]!, sato, '2025-04-30'),
      communication_type: 'phone',
      person_in_charge_hospital: '事務長',
    }),
  ]);
  await append(tenantA, streamId('communication', records.before), [
    created(records.before, base(institutions[0]!, sato, '2025-03-31')),
  ]);
  await append(tenantA, streamId('communication', records.gone), [
    created(records.gone, base(institutions[0]!, sato, '2025-04-15')),
    { type: 'CommunicationDeleted', data: { communication_id: records.gone, medical_institution_id: institutions[0] } },
  ]);
  await append(tenantB, streamId('communication', records.otherTenant), [
    created(records.otherTenant, base(institutions[0]!, other, '2025-04-12')),
  ]);

  const reached = await waitForPosition(
    db,
    [communicationsProjection.name, tasksProjection.name, medicalInstitutionCrmProjection.name],
    last!,
    120_000,
  );
  if (!reached) throw new Error('projections did not catch up');
});

afterAll(async () => {
  await projections?.stop();
  await store?.close();
  await db?.close();
});

const staticKeys = [
  'acted_at',
  'communication_type',
  'user',
  'category',
  'purpose',
  'doctor_attended',
  'story',
  'medical_institution_name',
  'medical_institution_code',
  'prefecture',
  'city',
  'facility_type',
  'comment_count',
  'like_count',
  'task_count',
];
const labelKey = (id: string) => `label:${id}`;

const request = (
  tenantId: string,
  keys: string[],
  period = { from: '2025-04-01', to: '2025-04-30' },
): ReportSourceRequest => ({
  tenantId,
  buckets: periodBuckets(period, 'month'),
  // Ignored: the kind has no figures per period.
  comparisonBuckets: periodBuckets({ from: '2024-04-01', to: '2024-04-30' }, 'month'),
  periodUnit: 'month',
  ownDepartmentIds: [],
  itemKeys: new Set(keys),
});

describe('communication report source', () => {
  it('answers each live record of the period with its fields, counts and label values', async () => {
    const keys = [...staticKeys, ...Object.values(labels).map(labelKey)];
    const rows = await communicationReportsSource.load(readModels(), request(tenantA, keys));
    expect(rows.map((r) => r.id).sort()).toEqual([records.full, records.plain].sort());
    const full = rows.find((r) => r.id === records.full)!;
    expect(full.values).toEqual({
      acted_at: '2025-04-10',
      communication_type: '訪問',
      user: '山田太郎',
      category: '定期訪問',
      purpose: '紹介依頼',
      doctor_attended: '鈴木院長',
      story: '院長と面談',
      medical_institution_name: '新宿中央病院',
      medical_institution_code: codes[0],
      prefecture: '東京都',
      city: '新宿区',
      facility_type: '一般病院',
      comment_count: 1,
      like_count: 2,
      task_count: 2,
      [labelKey(labels.purpose)]: '紹介御礼',
      // In the label's order of choices, joined with 、.
      [labelKey(labels.topics)]: '病床、設備',
      [labelKey(labels.people)]: 3,
      [labelKey(labels.department)]: '循環器内科',
      [labelKey(labels.note)]: '次回は来月',
      // A deleted label (and another tenant's) shows nothing.
      [labelKey(labels.deleted)]: null,
      [labelKey(labels.otherTenant)]: null,
    });
    expect(full.figures).toEqual({});
    expect(full.comparisonFigures).toEqual({});
    const plain = rows.find((r) => r.id === records.plain)!;
    expect(plain.values).toMatchObject({
      communication_type: '電話',
      user: '佐藤花子',
      // No doctor met: the person in charge is no 面談医師.
      doctor_attended: null,
      prefecture: '静岡県',
      city: '静岡市葵区',
      facility_type: '無床診療所',
      comment_count: 0,
      like_count: 0,
      task_count: 0,
      [labelKey(labels.purpose)]: null,
    });
  });

  it('orders the records as the communications list does, newest first, without a sort of its own', async () => {
    // Before: the rows came in the order of their random ids, a report of the month read in no order.
    const rows = await communicationReportsSource.load(
      readModels(),
      request(tenantA, ['acted_at'], { from: '2025-03-01', to: '2025-04-30' }),
    );
    expect(rows.map((r) => [r.values.acted_at, r.order])).toEqual([
      ['2025-04-30', 0],
      ['2025-04-10', 1],
      ['2025-03-31', 2],
    ]);
    const definition = ReportDefinitionInput.parse({
      name: '活動',
      display_items: [{ item_key: 'acted_at' }, { item_key: 'user' }],
      aggregation_settings: { period: { from: '2025-03-01', to: '2025-04-30' }, period_unit: 'month' },
    });
    const result = await runReport(communicationReportsSource, readModels(), tenantA, definition, {
      page: 1,
      perPage: 100,
    });
    expect(result.rows.map((r) => r.id)).toEqual([records.plain, records.full, records.before]);
  });

  it('reads only the items asked', async () => {
    const rows = await communicationReportsSource.load(readModels(), request(tenantA, ['acted_at', 'like_count']));
    for (const row of rows) expect(Object.keys(row.values).sort()).toEqual(['acted_at', 'like_count']);
    // The institution's id, which the engine asks to count distinct institutions.
    const ids = await communicationReportsSource.load(readModels(), request(tenantA, ['medical_institution_id']));
    expect(Object.fromEntries(ids.map((r) => [r.id, r.values.medical_institution_id]))).toEqual({
      [records.full]: institutions[0],
      [records.plain]: institutions[1],
    });
  });

  it('keeps to the period by the acted date, and to the tenant', async () => {
    const march = await communicationReportsSource.load(
      readModels(),
      request(tenantA, ['acted_at'], { from: '2025-03-01', to: '2025-03-31' }),
    );
    expect(march.map((r) => r.id)).toEqual([records.before]);
    const other = await communicationReportsSource.load(readModels(), request(tenantB, ['user', 'acted_at']));
    expect(other).toEqual([
      {
        id: records.otherTenant,
        values: { user: '他社ユーザー', acted_at: '2025-04-12' },
        figures: {},
        comparisonFigures: {},
        order: 0,
      },
    ]);
    expect(await communicationReportsSource.load(readModels(), request(randomUUID(), ['acted_at']))).toEqual([]);
  });

  it('lists the static items, the tenant’s accounts as staff choices and its live labels', async () => {
    const items = await communicationReportsSource.items(readModels(), tenantA);
    expect(items.find((i) => i.key === 'user')!.selections).toEqual([
      { value: sato, label: '佐藤花子' },
      { value: yamada, label: '山田太郎' },
    ]);
    const labelItems = items.filter((i) => i.category === 'ラベル');
    expect(labelItems.map((i) => [i.key, i.label, i.value_type])).toEqual([
      [labelKey(labels.purpose), '訪問目的区分', 'selection'],
      [labelKey(labels.topics), '話題', 'selection'],
      [labelKey(labels.people), '面談人数', 'integer'],
      [labelKey(labels.department), '関連診療科', 'string'],
      [labelKey(labels.note), '備考', 'string'],
    ]);
    expect(labelItems[1]!.selections).toEqual([
      { value: selections.beds, label: '病床' },
      { value: selections.staff, label: '人員' },
      { value: selections.equipment, label: '設備' },
    ]);
    // The type's choices name the enum values the rows show by name.
    expect(items.find((i) => i.key === 'communication_type')!.selections).toContainEqual({
      value: 'visit',
      label: '訪問',
    });
    const otherItems = await communicationReportsSource.items(readModels(), tenantB);
    expect(otherItems.filter((i) => i.category === 'ラベル').map((i) => i.label)).toEqual(['他社ラベル']);
    expect(otherItems.find((i) => i.key === 'user')!.selections.map((s) => s.label)).toEqual(['他社ユーザー']);
    expect(communicationReportsSource.reads).toEqual([
      communicationsProjection.name,
      tasksProjection.name,
      medicalInstitutionCrmProjection.name,
    ]);
  });

  it('runs through the engine: type shown by name, filtered by its code, grouped by period', async () => {
    const definition = ReportDefinitionInput.parse({
      name: '活動',
      display_items: [
        { item_key: 'acted_at' },
        { item_key: 'communication_type' },
        { item_key: 'user' },
        { item_key: labelKey(labels.topics) },
      ],
      filter_conditions: [{ item_key: 'communication_type', operator: 'eq', values: ['visit'] }],
      aggregation_settings: { period: { from: '2025-03-01', to: '2025-04-30' }, period_unit: 'month' },
    });
    const result = await runReport(communicationReportsSource, readModels(), tenantA, definition, {
      page: 1,
      perPage: 100,
    });
    expect(result.rows).toEqual(
      [
        {
          id: records.before,
          acted_at: '2025-03-31',
          communication_type: '訪問',
          user: '佐藤花子',
          [labelKey(labels.topics)]: null,
        },
        {
          id: records.full,
          acted_at: '2025-04-10',
          communication_type: '訪問',
          user: '山田太郎',
          [labelKey(labels.topics)]: '病床、設備',
        },
      ].reverse(),
    );
    const aggregation = await aggregateReport(
      communicationReportsSource,
      readModels(),
      tenantA,
      { ...definition, filter_conditions: [] },
      ['period'],
    );
    expect(aggregation.totals).toMatchObject({ row_count: 3, medical_institution_count: 2 });
    expect(aggregation.rows.map((r) => r.row_count)).toEqual([2, 1]);
  });

  it(`refuses a period of more than ${maxCommunicationReportRows} records before reading any`, async () => {
    // The bound is read from the per-day counts, so a count row alone stands for that many records.
    const crowded = randomUUID();
    await sql`INSERT INTO rm.communication_day_counts (tenant_id, acted_date, communication_type, record_count)
              VALUES (${crowded}, '2025-04-03', 'visit', ${maxCommunicationReportRows}),
                     (${crowded}, '2025-04-04', 'phone', 1)`.execute(readModels());
    const error = await communicationReportsSource
      .load(readModels(), request(crowded, ['acted_at']))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TooManyCommunicationsError);
    expect((error as Error).message).toBe('対象の活動が多すぎます。期間を短くしてください');
    // Exactly the bound is still answered.
    const fine = await communicationReportsSource
      .load(readModels(), request(crowded, ['acted_at'], { from: '2025-04-01', to: '2025-04-03' }))
      .catch((e: unknown) => e);
    expect(fine).toEqual([]);
  });
});
