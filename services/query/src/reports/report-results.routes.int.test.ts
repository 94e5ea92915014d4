import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { featureKeys } from '@renkei/contracts';
import { streamId } from '@renkei/event-store';
import { buildInstitutionCode, institutionIdFromCode } from '@renkei/institution-master';
import { startQueryTest, type QueryTest } from '../testing/query-test.ts';

let q: QueryTest;

const code = (n: number) =>
  buildInstitutionCode({ prefectureCode: 13, scoreTable: 1, districtNumber: 2, institutionNumber: 1000 + n });
const mi = (n: number) => institutionIdFromCode(code(n));
const masterCsv =
  [
    [code(1), 'さくら総合病院', '東京都新宿区西新宿2-8-1', '一般病院'],
    [code(2), 'ひまわりクリニック', '東京都品川区広町2-1', '診療所'],
    [code(3), 'つばき医院', '東京都新宿区歌舞伎町1-1', '診療所'],
  ]
    .map(([c, name, address, type]) => `${c},${name},,,${address},,,,${type},0,内科,,,開設`)
    .join('\n') + '\n';

const tenantA = randomUUID();
const tenantB = randomUUID();
const cardiology = randomUUID();
const surgery = randomUUID();
const label = randomUUID();
const choice = randomUUID();
const definitionId = randomUUID();
const areaDefinitionId = randomUUID();
const otherTenantDefinitionId = randomUUID();

const referral = (n: number, date: string, institution: string, ownDepartment: string | null) => ({
  identity: `referral:${n}`,
  row_number: n + 1,
  referral_date: date,
  patient_id: `p${n}`,
  patient_key: `p${n}`,
  medical_institution_id: institution,
  institution_code: null,
  institution_name: 'x',
  from_department: null,
  from_doctor: null,
  to_department: null,
  own_department_id: ownDepartment,
  to_doctor: null,
  purpose: null,
  first_visit: n % 2 === 0,
  source_id: null,
});

const definition = (over: Record<string, unknown> = {}) => ({
  name: '紹介実績',
  display_items: [
    { item_key: 'medical_institution_name', label: null, aggregation_method: null, formula: null },
    { item_key: 'referral_count', label: null, aggregation_method: null, formula: null },
    { item_key: `label:${label}`, label: null, aggregation_method: null, formula: null },
  ],
  filter_conditions: [],
  sort_conditions: [{ item_key: 'referral_count', direction: 'desc' }],
  aggregation_settings: {
    period: { from: '2025-04-01', to: '2025-06-30' },
    period_unit: 'month' as const,
    unit_type: 'month' as const,
    comparison_period: null,
    own_department_ids: [],
  },
  ...over,
});

async function post(tenantId: string, url: string, body: unknown, features: readonly string[] = featureKeys) {
  const token = await q.testAuth.token({ tenantId, features: [...features] as never });
  return q.app.inject({ method: 'POST', url, payload: body as object, headers: { authorization: `Bearer ${token}` } });
}
async function get(tenantId: string, url: string) {
  const token = await q.testAuth.token({ tenantId, features: [...featureKeys] });
  return q.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
}

beforeAll(async () => {
  q = await startQueryTest({ master: { csv: masterCsv } });
  await q.record(tenantA, streamId('own_departments', tenantA), 'OwnDepartmentsReplaced', {
    own_departments: [
      { id: cardiology, name: '循環器内科', department_id: null },
      { id: surgery, name: '消化器外科', department_id: null },
    ],
  });
  const importId = randomUUID();
  const stream = streamId('referral_data_import', importId);
  const chunk = { import_id: importId, failed_row_count: 0, errors: [] };
  const referrals = [
    referral(1, '2025-04-03', mi(1), cardiology),
    referral(2, '2025-04-20', mi(1), surgery),
    referral(3, '2025-05-11', mi(1), null),
    referral(4, '2025-06-30', mi(3), cardiology),
    referral(5, '2025-03-31', mi(3), cardiology), // before the period
  ];
  await q.record(tenantA, stream, 'ReferralDataImportRequested', {
    import_id: importId,
    import_type: 'referral',
    filename: 'x.csv',
    stored_path: '/x',
    mapping: null,
  });
  await q.record(tenantA, stream, 'ReferralDataImportStarted', {
    import_id: importId,
    total_row_count: referrals.length,
  });
  await q.record(tenantA, stream, 'ReferralsImported', {
    ...chunk,
    chunk: 0,
    imported_row_count: referrals.length,
    referrals,
  });
  // A select label with a value on institution 2 (which has no referrals: the label makes it the tenant's).
  await q.record(tenantA, streamId('medical_institution_label', label), 'MedicalInstitutionLabelCreated', {
    label_id: label,
    name: '重点度',
    description: '',
    component_type: 'select',
    selections: [{ id: choice, label: 'A', order: 0 }],
    areas: [],
  });
  await q.record(tenantA, streamId('medical_institution_crm', mi(2)), 'MedicalInstitutionLabelValuesChanged', {
    medical_institution_id: mi(2),
    values: [
      {
        label_id: label,
        text_value: null,
        integer_value: null,
        date_value: null,
        time_value: null,
        selection_id: choice,
        selection_ids: [],
        own_department_id: null,
        area_id: null,
      },
    ],
    removed_label_ids: [],
    previous: [],
    import_id: null,
  });
  const { name: _name, ...saved } = definition();
  for (const [tenant, id, kind] of [
    [tenantA, definitionId, 'medical_institution_reports'],
    [tenantA, areaDefinitionId, 'area_reports'],
    [tenantB, otherTenantDefinitionId, 'medical_institution_reports'],
  ] as const)
    await q.record(tenant, `report_definition-${id}`, 'ReportDefinitionCreated', {
      report_definition_id: id,
      kind,
      name: '保存済み',
      definition: saved,
      created_by_name: '連携 花子',
    });
  await q.settle();
}, 120_000);

afterAll(async () => {
  await q?.close();
});

describe('report item definitions', () => {
  it('lists the static items and the tenant’s institution labels', async () => {
    const res = await get(tenantA, '/api/medical_institution_reports/item_definitions');
    expect(res.statusCode, res.body).toBe(200);
    const items = res.json() as { key: string; label: string; value_type: string; selections: unknown[] }[];
    expect(items.map((i) => i.key)).toContain('referral_count');
    expect(items.find((i) => i.key === `label:${label}`)).toMatchObject({
      label: '重点度',
      value_type: 'selection',
      selections: [{ value: choice, label: 'A' }],
    });
    const other = await get(tenantB, '/api/medical_institution_reports/item_definitions');
    expect((other.json() as { key: string }[]).some((i) => i.key.startsWith('label:'))).toBe(false);
    const own = await get(tenantA, '/api/own_department_reports/item_definitions');
    expect((own.json() as { key: string }[]).map((i) => i.key)).toContain('referring_institution_count');
  });
});

describe('report results', () => {
  it('runs an unsaved institution report: bucket columns, totals, label text, sorted', async () => {
    const res = await post(tenantA, '/api/medical_institution_reports/results', { definition: definition() });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.columns.map((c: { key: string }) => c.key)).toEqual([
      'medical_institution_name',
      'referral_count@2025-04-01',
      'referral_count@2025-05-01',
      'referral_count@2025-06-01',
      'referral_count',
      `label:${label}`,
    ]);
    expect(body.rows).toEqual([
      {
        id: mi(1),
        medical_institution_name: 'さくら総合病院',
        'referral_count@2025-04-01': 2,
        'referral_count@2025-05-01': 1,
        'referral_count@2025-06-01': 0,
        referral_count: 3,
        [`label:${label}`]: null,
      },
      {
        id: mi(3),
        medical_institution_name: 'つばき医院',
        'referral_count@2025-04-01': 0,
        'referral_count@2025-05-01': 0,
        'referral_count@2025-06-01': 1,
        referral_count: 1,
        [`label:${label}`]: null,
      },
      {
        id: mi(2),
        medical_institution_name: 'ひまわりクリニック',
        'referral_count@2025-04-01': 0,
        'referral_count@2025-05-01': 0,
        'referral_count@2025-06-01': 0,
        referral_count: 0,
        [`label:${label}`]: 'A',
      },
    ]);
    expect(body.meta).toEqual({ total_count: 3, page: 1, per_page: 100, total_pages: 1 });
  });

  it('filters, narrows to own departments and pages', async () => {
    const res = await post(tenantA, '/api/medical_institution_reports/results', {
      definition: definition({
        filter_conditions: [{ item_key: 'medical_institution_name', operator: 'contains', values: ['サクラ'] }],
        aggregation_settings: {
          period: { from: '2025-04-01', to: '2025-06-30' },
          period_unit: 'quarter',
          own_department_ids: [cardiology],
        },
      }),
      per_page: 1,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().rows).toEqual([
      { id: mi(1), medical_institution_name: 'さくら総合病院', referral_count: 1, [`label:${label}`]: null },
    ]);
  });

  it('runs a saved definition; another tenant’s or another kind’s is a 404', async () => {
    const res = await post(tenantA, '/api/medical_institution_reports/results', { definition_id: definitionId });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().rows.map((r: { id: string }) => r.id)).toEqual([mi(1), mi(3), mi(2)]);
    for (const id of [otherTenantDefinitionId, areaDefinitionId, randomUUID()]) {
      const missing = await post(tenantA, '/api/medical_institution_reports/results', { definition_id: id });
      expect(missing.statusCode, id).toBe(404);
    }
  });

  it('answers 422 naming the fields for a definition that cannot run', async () => {
    const res = await post(tenantA, '/api/medical_institution_reports/results', {
      definition: definition({
        display_items: [
          { item_key: 'no_such_item' },
          { item_key: `label:${randomUUID()}` },
          { item_key: 'operation_rate', aggregation_method: 'sum' },
        ],
        filter_conditions: [{ item_key: 'referral_count', operator: 'gte', values: ['たくさん'] }],
      }),
    });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual([
      'definition.display_items.0.item_key',
      'definition.display_items.1.item_key',
      'definition.display_items.2.aggregation_method',
      'definition.filter_conditions.0.values',
    ]);
    const both = await post(tenantA, '/api/medical_institution_reports/results', {});
    expect(both.statusCode).toBe(422);
  });

  it('needs the kind’s feature', async () => {
    const res = await post(tenantA, '/api/medical_institution_reports/results', { definition: definition() }, ['tags']);
    expect(res.statusCode).toBe(403);
  });

  it('runs an own department report with 診療科なし and referring institutions', async () => {
    const res = await post(tenantA, '/api/own_department_reports/results', {
      definition: definition({
        display_items: [
          { item_key: 'own_department_name' },
          { item_key: 'referral_count' },
          { item_key: 'referring_institution_count' },
        ],
        sort_conditions: [],
        aggregation_settings: { period: { from: '2025-04-01', to: '2025-06-30' }, period_unit: 'quarter' },
      }),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().rows).toEqual([
      { id: cardiology, own_department_name: '循環器内科', referral_count: 2, referring_institution_count: 2 },
      { id: surgery, own_department_name: '消化器外科', referral_count: 1, referring_institution_count: 1 },
      {
        id: '00000000-0000-0000-0000-000000000000',
        own_department_name: '診療科なし',
        referral_count: 1,
        referring_institution_count: 1,
      },
    ]);
  });
});

describe('report aggregation results', () => {
  it('groups institutions by an attribute with totals', async () => {
    const res = await post(tenantA, '/api/medical_institution_reports/aggregation_results', {
      definition: definition(),
      grouping_item_keys: ['city'],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      columns: [
        { key: 'city', label: '市区町村', value_type: 'string' },
        { key: 'row_count', label: '件数', value_type: 'integer' },
        { key: 'referral_count', label: '紹介数（合計）', value_type: 'integer' },
      ],
      rows: [
        { city: '新宿区', row_count: 2, referral_count: 4 },
        { city: '品川区', row_count: 1, referral_count: 0 },
      ],
      totals: { city: null, row_count: 3, referral_count: 4 },
    });
    const bad = await post(tenantA, '/api/medical_institution_reports/aggregation_results', {
      definition: definition(),
      grouping_item_keys: ['referral_count'],
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors).toEqual([{ field: 'grouping_item_keys.0', message: 'この項目では集計できません' }]);
  });
});

describe('every kind is served', () => {
  it('area and communication reports answer their items, results and aggregation', async () => {
    for (const kind of ['area_reports', 'communication_reports']) {
      expect((await get(tenantA, `/api/${kind}/item_definitions`)).statusCode, kind).toBe(200);
      const res = await post(tenantA, `/api/${kind}/results`, {
        definition: definition({ display_items: [{ item_key: 'prefecture' }], sort_conditions: [] }),
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    const area = await post(tenantA, '/api/area_reports/results', {
      definition: definition({
        display_items: [{ item_key: 'city' }, { item_key: 'referral_count' }],
        sort_conditions: [{ item_key: 'city', direction: 'asc' }],
        aggregation_settings: { period: { from: '2025-04-01', to: '2025-06-30' }, period_unit: 'quarter' },
      }),
    });
    expect(area.statusCode, area.body).toBe(200);
    const shinjuku = area.json().rows.find((r: Record<string, unknown>) => r['city'] === '新宿区');
    expect(shinjuku).toMatchObject({ id: '13|新宿区', referral_count: 4 });
    const grouped = await post(tenantA, '/api/communication_reports/aggregation_results', {
      definition: definition({ display_items: [{ item_key: 'acted_at' }], sort_conditions: [] }),
      grouping_item_keys: ['period'],
    });
    expect(grouped.statusCode, grouped.body).toBe(200);
    expect(grouped.json().totals).toMatchObject({ row_count: 0, medical_institution_count: 0 });
  });
});
