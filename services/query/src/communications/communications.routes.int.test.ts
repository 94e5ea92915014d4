import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { featureKeys } from '@renkei/contracts';
import type { TestDatabase } from '@renkei/db';
import type { TestAuth } from '@renkei/service-kit/testing';
import { startQueryTest, type QueryTest } from '../testing/query-test.ts';
import { blankCommunication } from '@renkei/domain/testing';

let t: QueryTest;
let db: TestDatabase;
let app: FastifyInstance;
let testAuth: TestAuth;
let record: QueryTest['record'];
let settle: QueryTest['settle'];
let institutions: { id: string; name: string }[];

beforeAll(async () => {
  t = await startQueryTest({ master: { generated: { count: 2, seed: 5 } } });
  ({ db, app, testAuth, record, settle } = t);
  institutions = (
    await sql<{ id: string; name: string }>`SELECT id, name FROM ref.medical_institutions ORDER BY code`.execute(
      db.kysely,
    )
  ).rows;
});

afterAll(async () => {
  await t?.close();
});

async function request(tenantId: string, method: 'GET' | 'POST', url: string, payload?: object) {
  const token = await testAuth.token({ tenantId, features: [...featureKeys] });
  return app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
}

const communication = (id: string, institution: string, user: string, patch: Record<string, unknown> = {}) =>
  blankCommunication(
    { communication_id: id, medical_institution_id: institution, user_id: user, acted_date: '2026-03-01' },
    { tasks: [], ...patch },
  );

describe('communication queries', () => {
  const tenant = randomUUID();
  const user = randomUUID();
  const [visit, phone, task] = [randomUUID(), randomUUID(), randomUUID()];

  beforeAll(async () => {
    await record(tenant, `account-${user}`, 'AccountRegistered', {
      account_id: user,
      tenant_id: tenant,
      username: '連携 花子',
      email: null,
      login_name: null,
      role: 'member',
      cs_account: false,
    });
    await record(
      tenant,
      `communication-${visit}`,
      'CommunicationCreated',
      communication(visit, institutions[0]!.id, user, {
        acted_date: '2026-02-10',
        story: 'ｲﾝﾁｮｳ先生と面談',
        tasks: [{ task_id: task, title: '資料送付', staff_id: user, deadline: '2026-02-17' }],
      }),
    );
    const commentId = randomUUID();
    await record(tenant, `communication-${visit}`, 'CommunicationCommentAdded', {
      communication_id: visit,
      comment_id: commentId,
      user_id: user,
      comment: 'お疲れさま',
    });
    await record(tenant, `communication-${visit}`, 'CommunicationCommentEdited', {
      communication_id: visit,
      comment_id: commentId,
      comment: 'お疲れさまです',
    });
    await record(tenant, `communication-${visit}`, 'CommunicationLiked', { communication_id: visit, user_id: user });
    await record(
      tenant,
      `communication-${phone}`,
      'CommunicationCreated',
      communication(phone, institutions[1]!.id, user, {
        communication_type: 'phone',
        acted_date: '2026-03-05',
        memo: '日程調整',
        category: '定期連絡',
        purpose: '紹介のお礼',
        person_in_charge_hospital: '事務長 鈴木',
        attendee: '看護部長',
      }),
    );
    await settle();
  });

  const search = async (body: object, url = '/api/communications/search_results', tenantId = tenant) => {
    const res = await request(tenantId, 'POST', url, body);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { data: { id: string }[]; meta: { total_count: number } };
  };

  it('lists newest first with names, tasks, comments and likes', async () => {
    const result = await search({});
    expect(result.meta.total_count).toBe(2);
    expect(result.data.map((c) => c.id)).toEqual([phone, visit]);
    expect(result.data[1]).toMatchObject({
      acted_date: '2026-02-10',
      user: { id: user, name: '連携 花子' },
      medical_institution: institutions[0],
      tasks: [
        { id: task, title: '資料送付', status: 'incomplete', deadline: '2026-02-17', staff: { name: '連携 花子' } },
      ],
      // The comment's version counts its edits (the If-Match of the next one).
      comments: [{ comment: 'お疲れさまです', user: { name: '連携 花子' }, version: 1 }],
      likes: [{ user: { id: user } }],
      version: 0,
    });
  });

  it('filters by keyword normalised like the partner search, type, period and institution', async () => {
    expect((await search({ keyword: 'いんちょう' })).data.map((c) => c.id)).toEqual([visit]);
    // LIKE's wildcards in a keyword are plain characters (three or more characters go through LIKE).
    expect((await search({ keyword: '%%%' })).data).toEqual([]);
    expect((await search({ keyword: 'い_ちょう' })).data).toEqual([]);
    expect((await search({ keyword: 'ﾆｯﾃｲ' })).data).toEqual([]);
    expect((await search({ keyword: '日程' })).data.map((c) => c.id)).toEqual([phone]);
    // Two characters go through the 2-gram index, normalised the same way (かな/カナ, 全角/半角).
    expect((await search({ keyword: '面談' })).data.map((c) => c.id)).toEqual([visit]);
    expect((await search({ keyword: 'いん' })).data.map((c) => c.id)).toEqual([visit]);
    expect((await search({ keyword: 'ﾁｮ' })).data.map((c) => c.id)).toEqual([visit]);
    expect((await search({ keyword: '調整' })).data.map((c) => c.id)).toEqual([phone]);
    // Story, memo and other memo are separate texts: a keyword spanning two of them matches neither.
    expect((await search({ keyword: '談日' })).data).toEqual([]);
    expect((await search({ keyword: '談' })).data.map((c) => c.id)).toEqual([visit]);
    expect((await search({ communication_types: ['phone'] })).data.map((c) => c.id)).toEqual([phone]);
    expect((await search({ period: { from: '2026-02-01', to: '2026-02-28' } })).data.map((c) => c.id)).toEqual([visit]);
    expect((await search({ sort: 'asc', per_page: 1 })).data.map((c) => c.id)).toEqual([visit]);
    const own = await search({}, `/api/medical_institutions/${institutions[1]!.id}/communications/search_results`);
    expect(own.data.map((c) => c.id)).toEqual([phone]);
  });

  it('answers a two-character keyword from the 2-gram index', async () => {
    const plan = await db.kysely.transaction().execute(async (trx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(trx);
      return sql<{ 'QUERY PLAN': string }>`
        EXPLAIN SELECT count(*) FROM rm.communications c
         WHERE rm.search_bigrams(c.search_text) @> ARRAY['面談']::text[]`.execute(trx);
    });
    expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/Index Scan on \S*search_bigrams/);
  });

  it('shows one record to its tenant only', async () => {
    expect((await request(tenant, 'GET', `/api/communications/${visit}`)).json()).toMatchObject({ id: visit });
    expect((await request(randomUUID(), 'GET', `/api/communications/${visit}`)).statusCode).toBe(404);
    expect((await search({}, undefined, randomUUID())).meta.total_count).toBe(0);
  });

  it('gives the partner search and the CRM summary the last visit, sortable', async () => {
    const found = await request(tenant, 'POST', '/api/medical_institutions/search_results', {
      sort_by: 'last_visit_date',
      sort: 'desc',
    });
    expect(found.statusCode, found.body).toBe(200);
    const rows = found.json().data as { id: string; last_visit_date: string | null }[];
    expect(rows.map((r) => [r.id, r.last_visit_date])).toEqual([
      [institutions[0]!.id, '2026-02-10'],
      // A phone call is no visit.
      [institutions[1]!.id, null],
    ]);
    const summary = await request(tenant, 'GET', `/api/medical_institutions/${institutions[0]!.id}/summary`);
    expect(summary.json()).toMatchObject({ last_visit_date: '2026-02-10' });
  });

  it('lists tasks with their filters; a completed one leaves the incomplete list', async () => {
    const standalone = randomUUID();
    await record(tenant, `task-${standalone}`, 'TaskCreated', {
      task_id: standalone,
      title: '電話する',
      staff_id: null,
      deadline: null,
      medical_institution_id: null,
      communication_id: null,
      status: 'incomplete',
    });
    await record(tenant, `task-${task}`, 'TaskUpdated', {
      task_id: task,
      title: '資料送付',
      staff_id: user,
      deadline: '2026-02-17',
      medical_institution_id: institutions[0]!.id,
      communication_id: visit,
      status: 'finished',
    });
    await settle();
    const list = async (query: string) => {
      const res = await request(tenant, 'GET', `/api/tasks?${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { data: { id: string; status: string; version: number }[]; meta: { total_count: number } };
    };
    expect((await list('status=incomplete')).data.map((t) => t.id)).toEqual([standalone]);
    expect((await list('status=finished')).data).toMatchObject([{ id: task, status: 'finished', version: 1 }]);
    expect((await list(`medical_institution_id=${institutions[0]!.id}`)).data.map((t) => t.id)).toEqual([task]);
    expect((await list('sort_by=deadline&sort=asc')).meta.total_count).toBe(2);
    const one = await request(tenant, 'GET', `/api/tasks/${task}`);
    expect(one.json()).toMatchObject({
      id: task,
      communication_id: visit,
      deadline: '2026-02-17',
      medical_institution: { id: institutions[0]!.id, name: institutions[0]!.name },
      staff: { id: user, name: '連携 花子' },
    });
    expect((await request(randomUUID(), 'GET', `/api/tasks/${task}`)).statusCode).toBe(404);
  });

  it("lists the tasks of one staff member (user_id); another tenant's staff member has none here", async () => {
    const mine = randomUUID();
    await record(tenant, `task-${mine}`, 'TaskCreated', {
      task_id: mine,
      title: '見積を送る',
      staff_id: user,
      deadline: '2026-03-10',
      medical_institution_id: institutions[1]!.id,
      communication_id: null,
      status: 'incomplete',
    });
    // The same staff member's id on a task of another tenant: never listed here, and no task of
    // this tenant is listed for that tenant's own staff member either.
    const otherTenant = randomUUID();
    const otherUser = randomUUID();
    await record(otherTenant, `task-${randomUUID()}`, 'TaskCreated', {
      task_id: randomUUID(),
      title: '他院のタスク',
      staff_id: otherUser,
      deadline: null,
      medical_institution_id: null,
      communication_id: null,
      status: 'incomplete',
    });
    await settle();
    const list = async (query: string, tenantId = tenant) => {
      const res = await request(tenantId, 'GET', `/api/tasks?${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { data: { id: string; staff: { id: string } | null }[]; meta: { total_count: number } };
    };
    const assigned = await list(`user_id=${user}&sort_by=deadline&sort=asc`);
    expect(assigned.data.map((t) => t.id)).toEqual([task, mine]);
    expect(assigned.data.every((t) => t.staff?.id === user)).toBe(true);
    expect((await list(`user_id=${user}&status=incomplete`)).data.map((t) => t.id)).toEqual([mine]);
    expect((await list(`user_id=${user}&medical_institution_id=${institutions[0]!.id}`)).data.map((t) => t.id)).toEqual(
      [task],
    );
    const foreign = await list(`user_id=${otherUser}`);
    expect(foreign).toMatchObject({ data: [], meta: { total_count: 0 } });
    expect((await list(`user_id=${user}`, otherTenant)).meta.total_count).toBe(0);
    expect((await list(`user_id=${otherUser}`, otherTenant)).meta.total_count).toBe(1);

    const bad = await request(tenant, 'GET', '/api/tasks?user_id=not-a-uuid');
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors.map((e: { field: string }) => e.field)).toEqual(['user_id']);
  });

  it('exports the whole search as CSV, in the search order', async () => {
    const dayInTokyo = () => new Date().toLocaleDateString('sv-SE', { timeZone: 'Asia/Tokyo' });
    const before = dayInTokyo();
    const res = await request(tenant, 'POST', '/api/communications/search_results/export', { sort: 'asc' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    // Named by the day it was made (either side of midnight in Tokyo, should the call cross it).
    const names = [before, dayInTokyo()].map((d) => `filename*=UTF-8''${encodeURIComponent(`活動記録_${d}.csv`)}`);
    expect(names.some((n) => String(res.headers['content-disposition']).includes(n))).toBe(true);
    const lines = res.body
      .replace(/^\ufeff/, '')
      .trim()
      .split('\r\n');
    // Every column the update import reads back: an edited export can correct any of these fields.
    expect(lines[0]).toBe(
      'ID,活動日,種別,医療機関,医療機関コード,担当者,カテゴリ,目的,イベント名,先方担当者,同行者,内容,メモ,その他メモ,医師面談,ラベル,タスク,いいね,コメント',
    );
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual([visit, phone]);
    expect(lines[1]).toContain('連携 花子');
    expect(lines[1]).toContain('資料送付');
    const code = (
      await sql<{ code: string }>`SELECT code FROM ref.medical_institutions WHERE id = ${institutions[1]!.id}`.execute(
        db.kysely,
      )
    ).rows[0]!.code;
    expect(lines[2]!.split(',').slice(3, 11)).toEqual([
      institutions[1]!.name,
      code,
      '連携 花子',
      '定期連絡',
      '紹介のお礼',
      '',
      '事務長 鈴木',
      '看護部長',
    ]);
    const other = await request(randomUUID(), 'POST', '/api/communications/search_results/export', {});
    expect(
      other.body
        .replace(/^\ufeff/, '')
        .trim()
        .split('\r\n'),
    ).toHaveLength(1);
  });
});

describe('communication search totals', () => {
  const tenant = randomUUID();
  const users = [randomUUID(), randomUUID()];
  const days = ['2026-01-31', '2026-02-01', '2026-02-15', '2026-03-01'];
  const types = ['visit', 'new_visit', 'phone'];
  const stories = ['院長と面談', '資料送付', 'いんちょう不在'];

  beforeAll(async () => {
    const ids: string[] = [];
    for (let i = 0; i < 24; i++) {
      const id = randomUUID();
      ids.push(id);
      await record(
        tenant,
        `communication-${id}`,
        'CommunicationCreated',
        communication(id, institutions[i % 2]!.id, users[i % 2]!, {
          acted_date: days[i % days.length],
          communication_type: types[i % types.length],
          story: stories[i % stories.length],
          is_doctor_attended: i % 5 === 0,
        }),
      );
    }
    // Texts past what the keyword index holds (2,000 bytes): counted through their own index.
    for (const [i, day] of ['2026-02-01', '2026-03-01', '2026-01-31'].entries()) {
      const id = randomUUID();
      await record(
        tenant,
        `communication-${id}`,
        'CommunicationCreated',
        communication(id, institutions[0]!.id, users[0]!, {
          acted_date: day,
          communication_type: types[i],
          story: `${'経過報告'.repeat(200)}院長と面談`,
        }),
      );
    }
    // Edits that move records to another day and type, and deletes: the totals follow.
    for (const id of ids.slice(0, 4)) {
      const { tasks: _tasks, ...fields } = communication(id, institutions[0]!.id, users[0]!, {
        acted_date: '2026-02-15',
        communication_type: 'new_visit',
      });
      await record(tenant, `communication-${id}`, 'CommunicationUpdated', fields);
    }
    for (const id of ids.slice(4, 7))
      await record(tenant, `communication-${id}`, 'CommunicationDeleted', {
        communication_id: id,
        medical_institution_id: institutions[0]!.id,
      });
    await settle();
  });

  it('answers every filter mix with the number of matching records', async () => {
    const bodies: { body: object; where: string }[] = [
      { body: {}, where: 'true' },
      {
        body: { period: { from: '2026-02-01', to: '2026-02-28' } },
        where: "acted_date BETWEEN '2026-02-01' AND '2026-02-28'",
      },
      { body: { communication_types: ['visit', 'new_visit'] }, where: "communication_type IN ('visit', 'new_visit')" },
      {
        body: { period: { from: '2026-01-31', to: '2026-02-15' }, communication_types: ['new_visit'] },
        where: "acted_date BETWEEN '2026-01-31' AND '2026-02-15' AND communication_type = 'new_visit'",
      },
      { body: { user_ids: [users[1]] }, where: `user_id = '${users[1]}'` },
      { body: { is_doctor_attended: true }, where: 'is_doctor_attended' },
      // Two characters: the 2-gram index alone counts them, exactly as strpos would.
      { body: { keyword: '面談' }, where: "strpos(search_text, '面談') > 0" },
      { body: { keyword: 'ｲﾝ' }, where: "strpos(search_text, 'イン') > 0" },
      // A period and a keyword: the covering index for short texts, the 2-gram or trigram index for long ones.
      {
        body: { keyword: '談', period: { from: '2026-02-01', to: '2026-03-31' } },
        where: "strpos(search_text, '談') > 0 AND acted_date >= '2026-02-01'",
      },
      {
        body: { keyword: '面談', period: { from: '2026-02-01', to: '2026-03-31' } },
        where: "strpos(search_text, '面談') > 0 AND acted_date >= '2026-02-01'",
      },
      {
        body: {
          keyword: 'いんちょう',
          period: { from: '2026-01-01', to: '2026-02-28' },
          communication_types: ['visit', 'new_visit'],
        },
        where:
          "strpos(search_text, 'インチョウ') > 0 AND acted_date <= '2026-02-28' AND communication_type IN ('visit', 'new_visit')",
      },
      {
        body: { keyword: '院長と面談', period: { from: '2026-01-31', to: '2026-02-15' } },
        where: "strpos(search_text, '院長ト面談') > 0 AND acted_date <= '2026-02-15'",
      },
    ];
    for (const { body, where } of bodies) {
      const { rows } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM rm.communications WHERE tenant_id = ${tenant} AND ${sql.raw(where)}`.execute(
        db.kysely,
      );
      const result = await search(tenant, body);
      expect(result.meta.total_count, JSON.stringify(body)).toBe(rows[0]!.n);
    }
    // The mixes above are not all empty or all full: the check can fail.
    expect((await search(tenant, {})).meta.total_count).toBe(24);
    expect(
      (await search(tenant, { keyword: '面談', period: { from: '2026-02-01', to: '2026-03-31' } })).meta.total_count,
    ).toBeGreaterThan(2);
  });

  it("gives the label list its order's number of saves as ETag", async () => {
    const other = randomUUID();
    const label = randomUUID();
    await record(other, `communication_labels-${other}`, 'CommunicationLabelCreated', {
      label_id: label,
      name: '目的',
      communication_type: 'visit',
      component_type: 'text',
      description: '',
      selections: [],
      is_required: false,
    });
    expect((await request(other, 'GET', '/api/communication_labels')).headers.etag).toBe('"0"');
    for (let i = 0; i < 2; i++)
      await record(other, `communication_labels-${other}`, 'CommunicationLabelsReordered', { label_ids: [label] });
    await settle();
    expect((await request(other, 'GET', '/api/communication_labels')).headers.etag).toBe('"2"');
  });
});

async function search(tenantId: string, body: object) {
  const res = await request(tenantId, 'POST', '/api/communications/search_results', body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { data: { id: string }[]; meta: { total_count: number } };
}
