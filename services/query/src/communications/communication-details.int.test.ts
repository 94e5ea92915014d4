import { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { featureKeys } from '@renkei/contracts';
import { createPostgresFileStorage } from '@renkei/file-storage';
import { startQueryTest, type QueryTest } from '../testing/query-test.ts';
import { blankCommunication, blankVoc } from '@renkei/domain/testing';

// A record's details are assembled by one statement (JSON aggregates): these pin every part of the
// answer to what the read models hold, with several of each, and keep another tenant's rows out of them.

let t: QueryTest;
let institution: { id: string; name: string };

beforeAll(async () => {
  t = await startQueryTest({ master: { generated: { count: 1, seed: 7 } } });
  institution = (
    await sql<{ id: string; name: string }>`SELECT id, name FROM ref.medical_institutions`.execute(t.db.kysely)
  ).rows[0]!;
});

afterAll(async () => {
  await t?.close();
});

async function request(tenantId: string, method: 'GET' | 'POST', url: string, payload?: object) {
  const token = await t.testAuth.token({ tenantId, features: [...featureKeys] });
  return t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
}

const fields = (id: string, user: string, patch: Record<string, unknown> = {}) =>
  blankCommunication(
    { communication_id: id, medical_institution_id: institution.id, user_id: user, acted_date: '2026-02-10' },
    { tasks: [], ...patch },
  );

const vocFields = (id: string, reported: string, communications: string[]) =>
  blankVoc(
    { voc_id: id, medical_institution_id: institution.id },
    { title: `VOC ${reported}`, reported_date: reported, communication_ids: communications },
  );

const iso = (d: Date | string) => new Date(d).toISOString();

describe('communication details', () => {
  const [tenant, other] = [randomUUID(), randomUUID()];
  // `stranger` has no account in the tenant (another tenant names it): shown without a name.
  const [ichiro, jiro, stranger] = [randomUUID(), randomUUID(), randomUUID()];
  const [busy, quiet, emailId] = [randomUUID(), randomUUID(), randomUUID()];
  const tasks = [randomUUID(), randomUUID(), randomUUID()].sort();
  const comments = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const [vocOld, vocShared, vocQuiet] = [randomUUID(), randomUUID(), randomUUID()];
  const files: { id: string; filename: string }[] = [];

  beforeAll(async () => {
    for (const [account, name] of [
      [ichiro, '連携 一郎'],
      [jiro, '連携 二郎'],
    ] as const)
      await t.record(tenant, `account-${account}`, 'AccountRegistered', {
        account_id: account,
        tenant_id: tenant,
        username: name,
        email: null,
        login_name: null,
        role: 'member',
        cs_account: false,
      });
    await t.record(tenant, `email-${emailId}`, 'EmailCreated', {
      email_id: emailId,
      title: '研修会のご案内',
      sender_name: '地域連携室',
      sender_email: 'renkei@example.jp',
      main_content: '<p>本文</p>',
      attachment_id: null,
      doctor_ids: [],
      recipients: [],
      invalid_recipients: [],
    });
    await t.record(
      tenant,
      `communication-${busy}`,
      'CommunicationCreated',
      fields(busy, ichiro, {
        story: '院長と面談',
        email_id: emailId,
        tasks: [
          { task_id: tasks[0], title: '資料送付', staff_id: ichiro, deadline: '2026-02-17' },
          { task_id: tasks[1], title: '電話', staff_id: null, deadline: null },
          { task_id: tasks[2], title: '日程調整', staff_id: stranger, deadline: '2026-03-01' },
        ],
      }),
    );
    await t.record(
      tenant,
      `communication-${quiet}`,
      'CommunicationCreated',
      fields(quiet, jiro, { acted_date: '2026-03-01', memo: 'メモ' }),
    );
    for (const [i, author] of [ichiro, jiro, stranger, ichiro].entries())
      await t.record(tenant, `communication-${busy}`, 'CommunicationCommentAdded', {
        communication_id: busy,
        comment_id: comments[i],
        user_id: author,
        comment: `コメント${i}`,
      });
    await t.record(tenant, `communication-${busy}`, 'CommunicationCommentEdited', {
      communication_id: busy,
      comment_id: comments[1],
      comment: 'コメント1（修正）',
    });
    for (const user of [jiro, ichiro, stranger])
      await t.record(tenant, `communication-${busy}`, 'CommunicationLiked', { communication_id: busy, user_id: user });
    await t.record(tenant, `voc-${vocOld}`, 'VocCreated', vocFields(vocOld, '2026-03-01', [busy]));
    await t.record(tenant, `voc-${vocShared}`, 'VocCreated', vocFields(vocShared, '2026-04-01', [quiet, busy]));
    await t.record(tenant, `voc-${vocQuiet}`, 'VocCreated', vocFields(vocQuiet, '2026-05-01', [quiet]));
    await t.settle();

    const storage = createPostgresFileStorage(t.db);
    for (const name of ['c.png', 'a.pdf', 'b.png']) {
      const file = await storage.put(
        { id: randomUUID(), tenantId: tenant, filename: name, contentType: 'image/png', createdBy: ichiro },
        Readable.from([Buffer.from('data')]),
      );
      files.push({ id: file.id, filename: name });
    }
    await storage.setOwnerFiles(
      tenant,
      `communication:${busy}`,
      files.map((f) => f.id),
      0,
    );

    // Another tenant's rows under the same ids: its own record `busy` with a comment, a like, a task, a
    // VOC, a campaign, a file, and an account named for `stranger`. None of it may show in the tenant's answer.
    await sql`INSERT INTO rm.communications (tenant_id, id, medical_institution_id, communication_type, acted_date,
        story, memo, other_memo, is_doctor_attended, user_id, label_values, search_text, version, revision,
        created_at, updated_at)
      VALUES (${other}, ${busy}, ${institution.id}, 'phone', '2026-02-11', 'よそ', '', '', true, ${stranger}, '[]',
        'よそ', 3, 3, now(), now())`.execute(t.db.kysely);
    await sql`INSERT INTO rm.mi_accounts (tenant_id, account_id, name) VALUES (${other}, ${stranger}, 'よその人'),
      (${other}, ${ichiro}, '別人')`.execute(t.db.kysely);
    await sql`INSERT INTO rm.communication_comments (tenant_id, id, communication_id, user_id, comment, version, created_at)
      VALUES (${other}, ${randomUUID()}, ${busy}, ${stranger}, 'よそのコメント', 0, now())`.execute(t.db.kysely);
    await sql`INSERT INTO rm.communication_likes (tenant_id, communication_id, user_id, created_at)
      VALUES (${other}, ${busy}, ${jiro}, now())`.execute(t.db.kysely);
    await sql`INSERT INTO rm.tasks (tenant_id, id, title, staff_id, deadline, medical_institution_id, communication_id,
        status, version, created_at, updated_at)
      VALUES (${other}, ${randomUUID()}, 'よそのタスク', ${stranger}, NULL, ${institution.id}, ${busy}, 'incomplete', 0,
        now(), now())`.execute(t.db.kysely);
    await sql`INSERT INTO rm.vocs (tenant_id, id, medical_institution_id, title, reported_date, status, priority,
        detail_text, action_text, user_id, voc_group_id, communication_ids, version, created_at, updated_at)
      VALUES (${other}, ${randomUUID()}, ${institution.id}, 'よそのVOC', '2026-06-01', 'NOT_STARTED', 'HIGH', '', '',
        NULL, NULL, ARRAY[${busy}, ${quiet}]::uuid[], 0, now(), now())`.execute(t.db.kysely);
    const otherEmail = randomUUID();
    await sql`INSERT INTO rm.emails (tenant_id, id, title, status, destination_count, invalid_destination_count,
        sender_name, sender_email, main_content, attachment_id, doctor_ids, sent_at, created_by, created_at,
        updated_at, version)
      VALUES (${other}, ${otherEmail}, 'よそのメール', 'sent', 0, 0, '', '', '', NULL, '{}', now(), NULL, now(), now(), 0)`.execute(
      t.db.kysely,
    );
    await sql`INSERT INTO rm.email_communications (tenant_id, communication_id, email_id)
      VALUES (${other}, ${quiet}, ${otherEmail})`.execute(t.db.kysely);
    const otherFile = await storage.put(
      { id: randomUUID(), tenantId: other, filename: 'よそ.png', contentType: 'image/png', createdBy: stranger },
      Readable.from([Buffer.from('data')]),
    );
    await storage.setOwnerFiles(other, `communication:${quiet}`, [otherFile.id], 0);
  });

  /** The answer the read models' rows make, built apart from the statement under test. */
  async function expected() {
    const row = async (table: string, where: string, id: string) =>
      (
        await sql<{ created_at: Date; updated_at?: Date }>`SELECT * FROM ${sql.table(table)}
          WHERE tenant_id = ${tenant} AND ${sql.ref(where)} = ${id}`.execute(t.db.kysely)
      ).rows[0]!;
    const [busyRow, quietRow] = [
      await row('rm.communications', 'id', busy),
      await row('rm.communications', 'id', quiet),
    ];
    const commentAt = await Promise.all(comments.map((c) => row('rm.communication_comments', 'id', c)));
    // Events recorded close together may share a creation time (the read model keeps microseconds, a
    // Date only milliseconds): the contract's order is creation time, then id, as the rows sort.
    const order = async (table: string, key: string) =>
      (
        await sql<{ key: string }>`SELECT ${sql.ref(key)} AS key FROM ${sql.table(table)}
          WHERE tenant_id = ${tenant} AND communication_id = ${busy} ORDER BY created_at, ${sql.ref(key)}`.execute(
          t.db.kysely,
        )
      ).rows.map((r) => r.key);
    const [commentOrder, likeOrder] = [
      await order('rm.communication_comments', 'id'),
      await order('rm.communication_likes', 'user_id'),
    ];
    const inOrder = <T>(list: T[], keys: string[], key: (x: T) => string) =>
      [...list].sort((a, b) => keys.indexOf(key(a)) - keys.indexOf(key(b)));
    const file = (f: { id: string; filename: string }) => ({
      id: f.id,
      filename: f.filename,
      url: expect.stringMatching(new RegExp(`^/files/${f.id}\\?expires=\\d+&signature=`)) as unknown,
    });
    const busyAnswer = {
      id: busy,
      communication_type: 'visit',
      acted_date: '2026-02-10',
      category: null,
      purpose: null,
      story: '院長と面談',
      email: { id: emailId, title: '研修会のご案内' },
      attachments: files.map(file),
      event_name: null,
      memo: '',
      other_memo: '',
      user: { id: ichiro, name: '連携 一郎' },
      person_in_charge_hospital: null,
      attendee: null,
      is_doctor_attended: false,
      medical_institution: institution,
      // One event made all three: the same creation time, so the id orders them.
      tasks: [
        {
          id: tasks[0],
          title: '資料送付',
          status: 'incomplete',
          deadline: '2026-02-17',
          staff: { id: ichiro, name: '連携 一郎' },
        },
        { id: tasks[1], title: '電話', status: 'incomplete', deadline: null, staff: null },
        {
          id: tasks[2],
          title: '日程調整',
          status: 'incomplete',
          deadline: '2026-03-01',
          staff: { id: stranger, name: '' },
        },
      ],
      comments: inOrder(
        [ichiro, jiro, stranger, ichiro].map((author, i) => ({
          id: comments[i]!,
          user: { id: author, name: author === ichiro ? '連携 一郎' : author === jiro ? '連携 二郎' : '' },
          created_date: iso(commentAt[i]!.created_at),
          comment: i === 1 ? 'コメント1（修正）' : `コメント${i}`,
          version: i === 1 ? 1 : 0,
        })),
        commentOrder,
        (c) => c.id,
      ),
      likes: inOrder(
        [
          { user: { id: jiro, name: '連携 二郎' } },
          { user: { id: ichiro, name: '連携 一郎' } },
          { user: { id: stranger, name: '' } },
        ],
        likeOrder,
        (l) => l.user.id,
      ),
      label_values: [],
      vocs: [
        { id: vocShared, title: 'VOC 2026-04-01', status: 'NOT_STARTED', priority: 'MIDDLE' },
        { id: vocOld, title: 'VOC 2026-03-01', status: 'NOT_STARTED', priority: 'MIDDLE' },
      ],
      created_at: iso(busyRow.created_at),
      updated_at: iso(busyRow.updated_at!),
      // A comment or a like is no save of the record itself.
      version: 0,
    };
    const quietAnswer = {
      ...busyAnswer,
      id: quiet,
      acted_date: '2026-03-01',
      story: '',
      memo: 'メモ',
      email: null,
      attachments: [],
      user: { id: jiro, name: '連携 二郎' },
      tasks: [],
      comments: [],
      likes: [],
      vocs: [
        { id: vocQuiet, title: 'VOC 2026-05-01', status: 'NOT_STARTED', priority: 'MIDDLE' },
        { id: vocShared, title: 'VOC 2026-04-01', status: 'NOT_STARTED', priority: 'MIDDLE' },
      ],
      created_at: iso(quietRow.created_at),
      updated_at: iso(quietRow.updated_at!),
    };
    return { busyAnswer, quietAnswer };
  }

  it('answers every part of each record, in order, from the tenant’s rows only', async () => {
    const { busyAnswer, quietAnswer } = await expected();
    const found = await request(tenant, 'POST', '/api/communications/search_results', {});
    expect(found.statusCode, found.body).toBe(200);
    expect(found.json()).toEqual({
      data: [quietAnswer, busyAnswer],
      meta: { total_count: 2, page: 1, per_page: 20, total_pages: 1 },
    });
    const timeline = await request(
      tenant,
      'POST',
      `/api/medical_institutions/${institution.id}/communications/search_results`,
      { sort: 'asc' },
    );
    expect(timeline.json().data).toEqual([busyAnswer, quietAnswer]);
    const one = await request(tenant, 'GET', `/api/communications/${busy}`);
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json()).toEqual(busyAnswer);
  });

  it('answers the other tenant its own record under the same id, with its own rows', async () => {
    const one = await request(other, 'GET', `/api/communications/${busy}`);
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json()).toMatchObject({
      id: busy,
      communication_type: 'phone',
      story: 'よそ',
      email: null,
      attachments: [],
      user: { id: stranger, name: 'よその人' },
      tasks: [{ title: 'よそのタスク', staff: { id: stranger, name: 'よその人' } }],
      comments: [{ comment: 'よそのコメント', user: { id: stranger, name: 'よその人' } }],
      likes: [{ user: { id: jiro, name: '' } }],
      vocs: [{ title: 'よそのVOC', priority: 'HIGH' }],
      version: 3,
    });
    const found = await request(other, 'POST', '/api/communications/search_results', {});
    expect(found.json().data.map((c: { id: string }) => c.id)).toEqual([busy]);
  });

  it('pages many records with their details in the page’s order', async () => {
    const page = await request(tenant, 'POST', '/api/communications/search_results', { per_page: 1, page: 2 });
    expect(page.json()).toMatchObject({ data: [{ id: busy, comments: { length: 4 } }], meta: { total_count: 2 } });
    expect((await request(tenant, 'GET', `/api/communications/${randomUUID()}`)).statusCode).toBe(404);
    const unknown = await request(
      tenant,
      'POST',
      `/api/medical_institutions/${randomUUID()}/communications/search_results`,
      {},
    );
    expect(unknown.statusCode).toBe(404);
  });
});
