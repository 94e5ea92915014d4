import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import iconv from 'iconv-lite';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { defaultResources, featureKeys, listVersion, ownDepartmentsVersion } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import type { LabelValueData } from '@renkei/domain';
import {
  createPostgresEventStore,
  formatPosition,
  streamId,
  type EventStore,
  type Position,
} from '@renkei/event-store';
import { buildInstitutionCode, importInstitutionMaster, institutionIdFromCode } from '@renkei/institution-master';
import { catchUpProjections } from '@renkei/projections';
import type { ReadModels } from '@renkei/read-models';
import { createTestAuth, type TestAuth } from '@renkei/service-kit/testing';
import { buildQueryApp, queryProjections } from '../index.ts';
import { searchConditions } from './medical-institutions.queries.ts';

let db: TestDatabase;
let store: EventStore;
let app: FastifyInstance;
let testAuth: TestAuth;
const code = (n: number) =>
  buildInstitutionCode({ prefectureCode: 22, scoreTable: 1, districtNumber: 1, institutionNumber: 1000 + n });
const mi = (n: number) => institutionIdFromCode(code(n));

const masterRows = [
  [
    code(1),
    'サクラ総合病院',
    'サクラソウゴウビョウイン',
    '420-0001',
    '静岡県静岡市葵区追手町1-1',
    '054-111-1111',
    '医療法人社団さくら会',
    '佐藤 一郎',
    '一般病院',
    '200',
    '内科、外科',
    '34.97',
    '138.38',
    '開設',
  ],
  [
    code(2),
    '医療法人社団あおば会 あおば内科クリニック',
    'アオバナイカクリニック',
    '410-0001',
    '静岡県沼津市大手町2-2',
    '055-222-2222',
    '医療法人社団あおば会',
    '鈴木 花子',
    '無床診療所',
    '0',
    '内科',
    '35.10',
    '138.86',
    '開設',
  ],
  [
    code(3),
    '=HYPERLINK眼科',
    'イコールガンカ',
    '430-0001',
    '静岡県浜松市中央区元城町3-3',
    '053-333-3333',
    '個人',
    '高橋 次郎',
    '無床診療所',
    '0',
    '眼科',
    '34.71',
    '137.73',
    '休止',
  ],
  [
    code(4),
    '富士見病院',
    'フジミビョウイン',
    '416-0001',
    '静岡県富士市本町4-4',
    '0545-44-4444',
    '静岡県',
    '田中 三郎',
    '地域医療支援病院',
    '400',
    '内科、循環器内科、整形外科',
    '35.16',
    '138.68',
    '開設',
  ],
];

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  testAuth = await createTestAuth({ audience: defaultResources.query });
  app = await buildQueryApp({
    db,
    auth: testAuth.auth,
    logger: false,
    rateLimit: false,
    underPressure: false,
    minPositionTimeoutMs: 10_000,
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-q-'));
  const file = path.join(dir, 'm.csv');
  fs.writeFileSync(file, iconv.encode(masterRows.map((r) => r.join(',')).join('\r\n'), 'cp932'));
  const run = await importInstitutionMaster(db, file);
  expect(run.insertedCount).toBe(4);
  fs.rmSync(dir, { recursive: true });
});

afterAll(async () => {
  await app?.close();
  await store?.close();
  await db?.close();
});

let last: Position | undefined;
async function record(tenantId: string, stream: string, type: string, data: unknown, accountId: string | null = null) {
  const result = await store.append(
    stream,
    [
      {
        type,
        data,
        metadata: {
          tenant_id: tenantId,
          account_id: accountId,
          correlation_id: randomUUID(),
          causation_id: null,
          schema_version: 1,
        },
      },
    ],
    {
      expectedRevision: 'any',
    },
  );
  last = result.position;
  return formatPosition(result.position);
}
const settle = () => catchUpProjections({ db, store, projections: queryProjections, until: last! });

async function request(tenantId: string, method: 'GET' | 'POST', url: string, payload?: object) {
  const token = await testAuth.token({ tenantId, features: [...featureKeys] });
  return app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
}
const search = async (tenantId: string, body: object) => {
  const res = await request(tenantId, 'POST', '/api/medical_institutions/search_results', body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as {
    data: { id: string; name: string; tags: { name: string }[] }[];
    meta: { total_count: number };
  };
};
const names = (r: { data: { name: string }[] }) => r.data.map((d) => d.name).sort();

const tenant = randomUUID();
const account = randomUUID();
const tags = { a: randomUUID(), b: randomUUID() };
const phase = randomUUID();
const ownDepartment = randomUUID();
const label = randomUUID();
const choice = randomUUID();
const value = (patch: Partial<LabelValueData>): LabelValueData => ({
  label_id: label,
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

describe('institution queries', () => {
  beforeAll(async () => {
    await record(tenant, streamId('account', account), 'AccountRegistered', {
      account_id: account,
      tenant_id: tenant,
      username: '連携 太郎',
      email: null,
      login_name: null,
      role: 'owner',
      cs_account: false,
    });
    for (const [name, id] of Object.entries(tags))
      await record(tenant, streamId('tag', id), 'TagCreated', {
        tag_id: id,
        name: `タグ${name}`,
        description: '',
        group_name: null,
      });
    const crm = (n: number) => streamId('medical_institution_crm', mi(n));
    await record(
      tenant,
      crm(1),
      'MedicalInstitutionTagsChanged',
      {
        medical_institution_id: mi(1),
        tag_ids: [tags.a, tags.b],
        added_tag_ids: [tags.a, tags.b],
        removed_tag_ids: [],
      },
      account,
    );
    await record(
      tenant,
      crm(2),
      'MedicalInstitutionTagsChanged',
      { medical_institution_id: mi(2), tag_ids: [tags.a], added_tag_ids: [tags.a], removed_tag_ids: [] },
      account,
    );
    await record(
      tenant,
      streamId('phase_masters', tenant),
      'PhaseMastersReplaced',
      { phase_masters: [{ id: phase, name: '訪問済', description: '' }] },
      account,
    );
    await record(
      tenant,
      streamId('own_departments', tenant),
      'OwnDepartmentsReplaced',
      { own_departments: [{ id: ownDepartment, name: '循環器内科', department_id: '01' }] },
      account,
    );
    await record(
      tenant,
      crm(4),
      'MedicalInstitutionPhaseChanged',
      {
        medical_institution_id: mi(4),
        phase_master_id: phase,
        phase_name: '訪問済',
        previous_phase_master_id: null,
        previous_phase_name: null,
      },
      account,
    );
    await record(
      tenant,
      streamId('medical_institution_label', label),
      'MedicalInstitutionLabelCreated',
      {
        label_id: label,
        name: '重点度',
        description: '',
        component_type: 'select',
        selections: [{ id: choice, label: 'A', order: 0 }],
        areas: [],
      },
      account,
    );
    await record(
      tenant,
      crm(4),
      'MedicalInstitutionLabelValuesChanged',
      {
        medical_institution_id: mi(4),
        values: [value({ selection_id: choice })],
        removed_label_ids: [],
        previous: [],
        import_id: null,
      },
      account,
    );
    await record(
      tenant,
      streamId('medical_institution_memo', mi(4)),
      'MedicalInstitutionMemoChanged',
      { medical_institution_id: mi(4), content: '院長と面談', previous_content: '' },
      account,
    );
    await record(
      tenant,
      streamId('doctor', randomUUID()),
      'DoctorAdded',
      {
        doctor_id: randomUUID(),
        medical_institution_id: mi(4),
        name: '山田 太郎',
        division: '循環器内科',
        position: '部長',
        honorific: '先生',
        email: null,
        phone_number: null,
        profile: '',
        memo: '',
      },
      account,
    );
    await record(
      tenant,
      streamId('doctor', randomUUID()),
      'DoctorAdded',
      {
        doctor_id: randomUUID(),
        medical_institution_id: mi(2),
        name: '青葉 花子',
        division: '内科',
        position: '院長',
        honorific: '先生',
        email: 'aoba@example.jp',
        phone_number: null,
        profile: '',
        memo: '',
      },
      account,
    );
    await settle();
  });

  it('finds a full-width name from a half-width katakana or hiragana keyword, and ignores legal-entity prefixes', async () => {
    expect(names(await search(tenant, { keyword: 'ｻｸﾗ' }))).toEqual(['サクラ総合病院']);
    expect(names(await search(tenant, { keyword: 'ふじみ' }))).toEqual(['富士見病院']);
    expect(names(await search(tenant, { keyword: '医療法人社団あおば' }))).toEqual([
      '医療法人社団あおば会 あおば内科クリニック',
    ]);
    expect((await search(tenant, { keyword: code(3) })).meta.total_count).toBe(1);
  });

  it('sorts keyword matches as asked, for short (scanned) and 3+ character (trigram) keywords', async () => {
    const short = await search(tenant, { keyword: '病院', sort_by: 'name', sort: 'desc' });
    expect(short.data.length).toBeGreaterThanOrEqual(2);
    expect(short.data.map((d) => d.name)).toEqual(names(short).reverse());
    expect(short.meta.total_count).toBe(short.data.length);
    const long = (await search(tenant, { keyword: 'びょういん', sort_by: 'kana', sort: 'asc' })) as unknown as {
      data: { kana: string }[];
    };
    expect(long.data.length).toBeGreaterThanOrEqual(2);
    expect(long.data.map((d) => d.kana)).toEqual(long.data.map((d) => d.kana).sort());
  });

  it('answers 1-, 2- and 3+-character keywords alike, whichever index serves them', async () => {
    const aoba = ['医療法人社団あおば会 あおば内科クリニック'];
    expect(names(await search(tenant, { keyword: '内科' }))).toEqual(aoba);
    expect(names(await search(tenant, { keyword: 'ｸﾘ' }))).toEqual(aoba);
    expect(names(await search(tenant, { keyword: 'ない' }))).toEqual(aoba);
    expect(names(await search(tenant, { keyword: '眼' }))).toEqual(['=HYPERLINK眼科']);
    expect(names(await search(tenant, { keyword: '富士' }))).toEqual(['富士見病院']);
    expect((await search(tenant, { keyword: '病院', running_statuses: ['open'] })).meta.total_count).toBe(2);
    expect((await search(tenant, { keyword: 'ゾゾ' })).meta.total_count).toBe(0);
  });

  it('puts a 2-character keyword to the 2-gram index (the expression must be the indexed one)', async () => {
    const where = await searchConditions(db.typed<ReadModels>(), tenant, { keyword: 'びょ' });
    const plan = await db.kysely.transaction().execute(async (trx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(trx);
      return sql<{
        'QUERY PLAN': string;
      }>`EXPLAIN SELECT count(*) FROM ref.medical_institutions m WHERE ${where}`.execute(trx);
    });
    expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('medical_institutions_search_bigrams');
  });

  it('filters by master facts', async () => {
    expect(names(await search(tenant, { cities: ['沼津市'] }))).toEqual(['医療法人社団あおば会 あおば内科クリニック']);
    expect(names(await search(tenant, { facility_type_ids: ['12'] }))).toEqual(['富士見病院']);
    expect(names(await search(tenant, { department_ids: ['26'] }))).toEqual(['=HYPERLINK眼科']);
    expect(names(await search(tenant, { running_statuses: ['suspended'] }))).toEqual(['=HYPERLINK眼科']);
    expect((await search(tenant, { prefectures: ['13'] })).meta.total_count).toBe(0);
  });

  it('filters by tags with include/exclude and and/or/nand/nor', async () => {
    const group = (logic: string, search_condition = 'include') => ({
      tag_filter_groups: [{ logic, search_condition, tag_ids: [tags.a, tags.b] }],
    });
    expect(names(await search(tenant, group('and')))).toEqual(['サクラ総合病院']);
    expect((await search(tenant, group('or'))).meta.total_count).toBe(2);
    expect((await search(tenant, group('nand'))).meta.total_count).toBe(3);
    expect(names(await search(tenant, group('nor')))).toEqual(['=HYPERLINK眼科', '富士見病院']);
    expect((await search(tenant, group('or', 'exclude'))).meta.total_count).toBe(2);
  });

  it('filters by phase and label value, and shows this tenant’s data only', async () => {
    expect(names(await search(tenant, { phase_master_ids: [phase] }))).toEqual(['富士見病院']);
    expect((await search(tenant, { phase_master_ids: [phase], include_no_phase: true })).meta.total_count).toBe(4);
    expect(names(await search(tenant, { label_filters: [{ label_id: label, selection_ids: [choice] }] }))).toEqual([
      '富士見病院',
    ]);
    const other = await search(randomUUID(), { keyword: 'サクラ' });
    expect(other.data[0]!.tags).toEqual([]);
    expect((await search(randomUUID(), { phase_master_ids: [phase] })).meta.total_count).toBe(0);
  });

  it('keeps tag counts (medical_institution_count) from the institutions’ tag changes', async () => {
    const res = await request(tenant, 'GET', '/api/tags?sort=asc');
    expect(
      res
        .json()
        .data.map((t: { name: string; medical_institution_count: number }) => [t.name, t.medical_institution_count]),
    ).toEqual([
      ['タグa', 2],
      ['タグb', 1],
    ]);
  });

  it('sorts and pages', async () => {
    const page = await search(tenant, { sort_by: 'kana', sort: 'asc', page: 2, per_page: 3 });
    expect(page.meta).toEqual({ total_count: 4, page: 2, per_page: 3, total_pages: 2 });
    expect(page.data.map((d) => d.name)).toEqual(['富士見病院']);
  });

  it('answers 422 for bad filters', async () => {
    const res = await request(tenant, 'POST', '/api/medical_institutions/search_results', { prefectures: ['99'] });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].field).toMatch(/^prefectures/);
  });

  it('exports the whole result as CSV with BOM, neutralising formulas; Shift_JIS on request', async () => {
    const res = await request(tenant, 'POST', '/api/medical_institutions/search_results/export', {
      columns: ['code', 'name', 'tags'],
      sort_by: 'code',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    const text = res.rawPayload.toString('utf8');
    expect(text.startsWith('\ufeff医療機関コード,名称,タグ\r\n')).toBe(true);
    const lines = text.slice(1).trimEnd().split('\r\n');
    expect(lines).toHaveLength(5);
    expect(lines[1]).toBe(`${code(1)},サクラ総合病院,タグa、タグb`);
    expect(lines[3]).toBe(`${code(3)},'=HYPERLINK眼科,`);
    const sjis = await request(tenant, 'POST', '/api/medical_institutions/search_results/export', {
      columns: ['name'],
      encoding: 'shift_jis',
      keyword: '富士見',
    });
    expect(iconv.decode(sjis.rawPayload, 'cp932')).toBe('名称\r\n富士見病院\r\n');
  });

  it('serves the CRM page data and the history with who and when', async () => {
    const summary = await request(tenant, 'GET', `/api/medical_institutions/${mi(4)}/summary`);
    expect(summary.statusCode, summary.body).toBe(200);
    expect(summary.json()).toMatchObject({
      name: '富士見病院',
      prefecture: '22',
      city: '富士市',
      facility_type: { id: '12', name: '地域医療支援病院' },
      phase: { phase_name: '訪問済', changed_user: { id: account, name: '連携 太郎' } },
      memo: { content: '院長と面談', version: 1, updated_by: { name: '連携 太郎' } },
      doctor_count: 1,
      label_values: [{ label_id: label, selection_id: choice }],
    });
    const destinations = await request(
      tenant,
      'GET',
      '/api/doctors/email_destinations?keyword=%E3%81%82%E3%81%8A%E3%81%B0',
    );
    expect(destinations.statusCode, destinations.body).toBe(200);
    expect(destinations.json().data).toEqual([
      expect.objectContaining({
        name: '青葉 花子',
        email: 'aoba@example.jp',
        medical_institution: { id: mi(2), name: '医療法人社団あおば会 あおば内科クリニック' },
      }),
    ]);
    expect((await request(randomUUID(), 'GET', '/api/doctors/email_destinations')).json().meta.total_count).toBe(0);
    const doctors = await request(tenant, 'GET', `/api/medical_institutions/${mi(4)}/doctors`);
    expect(doctors.json()).toMatchObject([{ name: '山田 太郎', division: '循環器内科' }]);
    const history = await request(tenant, 'GET', `/api/medical_institutions/${mi(4)}/histories`);
    expect(history.statusCode, history.body).toBe(200);
    expect(history.json().data.map((h: { kind: string }) => h.kind)).toEqual([
      'doctor_added',
      'memo_changed',
      'label_values_changed',
      'phase_changed',
    ]);
    expect(history.json().data[2]).toMatchObject({
      user: { name: '連携 太郎' },
      changes: [{ label: '重点度', before: null, after: 'A' }],
    });
    const tagHistory = await request(tenant, 'GET', `/api/medical_institutions/${mi(1)}/histories`);
    expect(tagHistory.json().data[0].changes[0]).toMatchObject({ label: 'タグ', after: 'タグa、タグb' });
    const foreign = await request(randomUUID(), 'GET', `/api/medical_institutions/${mi(4)}/histories`);
    expect(foreign.json().meta.total_count).toBe(0);
    expect((await request(tenant, 'GET', `/api/medical_institutions/${randomUUID()}/summary`)).statusCode).toBe(404);
    expect((await request(tenant, 'GET', `/api/medical_institutions/${randomUUID()}/memo`)).statusCode).toBe(404);
  });

  it('serves reference data', async () => {
    const mdcs = await request(tenant, 'GET', '/api/mdcs');
    expect(mdcs.json()).toHaveLength(18);
    expect((await request(tenant, 'GET', '/api/departments')).json()).toContainEqual({
      id: '27',
      name: '耳鼻いんこう科',
    });
    expect((await request(tenant, 'GET', '/api/facility_type_groups')).json()[0]).toMatchObject({ name: '病院' });
    const k = await request(tenant, 'GET', '/api/kcodes?keyword=%E8%83%86%E5%9A%A2');
    expect(k.json().data.map((x: { code: string }) => x.code)).toEqual(['K672', 'K672-2']);
    const phases = await request(tenant, 'GET', '/api/phase_masters');
    expect(phases.json()).toEqual([{ id: phase, name: '訪問済', description: '', order: 0 }]);
    // The version a replacing PUT sends back as If-Match, as the command side computes it.
    expect(phases.headers.etag).toBe(`"${listVersion([{ id: phase, name: '訪問済', description: '' }])}"`);
    const own = await request(tenant, 'GET', '/api/own_medical_institution/departments');
    const ownList = [{ id: ownDepartment, name: '循環器内科', department_id: '01' }];
    expect(own.json()).toEqual([{ ...ownList[0], order: 0 }]);
    expect(own.headers.etag).toBe(`"${ownDepartmentsVersion(ownList)}"`);
    expect((await request(tenant, 'GET', '/api/medical_institution_labels')).json()).toMatchObject([
      { id: label, name: '重点度', order: 0 },
    ]);
  });

  it('lists label-value imports with progress and serves the template', async () => {
    const importId = randomUUID();
    const stream = streamId('medical_institution_label_value_import', importId);
    await record(
      tenant,
      stream,
      'LabelValueImportRequested',
      { import_id: importId, filename: 'values.csv', stored_path: '/x', encoding: null },
      account,
    );
    await record(tenant, stream, 'LabelValueImportStarted', { import_id: importId, total_row_count: 3 }, account);
    await record(
      tenant,
      stream,
      'LabelValueImportChunkProcessed',
      {
        import_id: importId,
        chunk: 0,
        imported_row_count: 2,
        failed_row_count: 1,
        errors: [{ row_number: 2, message: '2行目: だめ' }],
      },
      account,
    );
    await record(
      tenant,
      stream,
      'LabelValueImportFinished',
      {
        import_id: importId,
        status: 'completed',
        imported_row_count: 2,
        failed_row_count: 1,
        unprocessed_row_count: 0,
        abortion_row_number: null,
        error: null,
      },
      account,
    );
    await settle();
    const list = await request(tenant, 'GET', '/api/imports/medical_institution_label_values');
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().data).toEqual([
      expect.objectContaining({
        id: importId,
        status: 'completed',
        imported_row_count: 2,
        failed_row_count: 1,
        error_messages: [{ row_number: 2, message: '2行目: だめ' }],
        created_by: { id: account, name: '連携 太郎' },
      }),
    ]);
    expect(
      (await request(randomUUID(), 'GET', '/api/imports/medical_institution_label_values')).json().meta.total_count,
    ).toBe(0);
    const template = await request(
      tenant,
      'GET',
      '/api/imports/medical_institution_label_values/template?encoding=shift_jis',
    );
    expect(template.statusCode).toBe(200);
    expect(iconv.decode(template.rawPayload, 'cp932').split('\r\n')[0]).toBe('医療機関コード,医療機関名,重点度');
  });
});
