import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { featureKeys } from '@renkei/contracts';
import type { ActionListEvent } from '@renkei/domain';
import { startQueryTest, type QueryTest } from '../testing/query-test.ts';
import { japanDateTime } from '../medical-institutions/medical-institutions.export.ts';

let q: QueryTest;
let institutions: { id: string; name: string }[];

beforeAll(async () => {
  q = await startQueryTest({ master: { generated: { count: 5, seed: 31 } } });
  const { rows } = await sql<{ id: string; name: string }>`
    SELECT id, name FROM ref.medical_institutions ORDER BY code`.execute(q.db.kysely);
  institutions = rows;
});

afterAll(async () => {
  await q?.close();
});

/** Appends what the command service appends for a list, as `accountId`. */
async function record(tenantId: string, accountId: string, listId: string, events: ActionListEvent[]) {
  await q.store.append(
    `action_list-${listId}`,
    events.map((e) => ({
      ...e,
      metadata: {
        tenant_id: tenantId,
        account_id: accountId,
        correlation_id: randomUUID(),
        causation_id: null,
        schema_version: 1,
      },
    })),
    { expectedRevision: 'any' },
  );
  // The catch-up waits for the last event the helper recorded: one more, of no projection's interest.
  await q.record(tenantId, `noop-${randomUUID()}`, 'NoopForTest', {});
}

async function registerAccount(tenantId: string, name: string): Promise<string> {
  const accountId = randomUUID();
  await q.record(tenantId, `account-${accountId}`, 'AccountRegistered', {
    account_id: accountId,
    tenant_id: tenantId,
    username: name,
    email: null,
    login_name: null,
    role: 'member',
    cs_account: false,
  });
  return accountId;
}

async function get(tenantId: string, url: string) {
  const token = await q.testAuth.token({ tenantId, features: [...featureKeys] });
  return q.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
}

const created = (id: string, name: string): ActionListEvent => ({
  type: 'ActionListCreated',
  data: { action_list_id: id, name },
});
const added = (id: string, ids: string[]): ActionListEvent => ({
  type: 'ActionListItemsAdded',
  data: { action_list_id: id, medical_institution_ids: ids },
});
const actioned = (id: string, ids: string[]): ActionListEvent => ({
  type: 'ActionListItemsStatusChanged',
  data: { action_list_id: id, medical_institution_ids: ids, status: 'actioned' },
});

describe('action list queries', () => {
  const tenantId = randomUUID();
  const [older, newer, removed] = [randomUUID(), randomUUID(), randomUUID()];
  let accountId: string;

  beforeAll(async () => {
    accountId = await registerAccount(tenantId, '連携 太郎');
    const [a, b, c] = institutions.map((i) => i.id);
    await record(tenantId, accountId, older, [created(older, '紹介減少先フォロー'), added(older, [a!, b!, c!])]);
    await record(tenantId, accountId, older, [actioned(older, [b!])]);
    await record(tenantId, accountId, newer, [created(newer, '年末挨拶状送付先'), added(newer, [a!])]);
    await record(tenantId, accountId, removed, [created(removed, '消したリスト'), added(removed, [a!])]);
    await record(tenantId, accountId, removed, [{ type: 'ActionListDeleted', data: { action_list_id: removed } }]);
    await q.settle();
  });

  it('lists the lists newest first, with counts and creator, paged', async () => {
    const res = await get(tenantId, '/api/action_lists?per_page=1');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().meta).toEqual({ total_count: 2, page: 1, per_page: 1, total_pages: 2 });
    expect(res.json().data).toEqual([
      expect.objectContaining({ id: newer, name: '年末挨拶状送付先', medical_institution_count: 1, actioned_count: 0 }),
    ]);
    const second = await get(tenantId, '/api/action_lists?page=2&per_page=1');
    expect(second.json().data[0]).toMatchObject({
      id: older,
      status: 'in_progress',
      medical_institution_count: 3,
      actioned_count: 1,
      created_by: { id: accountId, name: '連携 太郎' },
      version: 2,
    });
  });

  it('answers one list by id, as the list call shows it', async () => {
    const res = await get(tenantId, `/api/action_lists/${older}`);
    expect(res.statusCode, res.body).toBe(200);
    const listed = (await get(tenantId, '/api/action_lists')).json().data.find((l: { id: string }) => l.id === older);
    expect(res.json()).toEqual(listed);
    expect(res.json()).toMatchObject({
      name: '紹介減少先フォロー',
      medical_institution_count: 3,
      actioned_count: 1,
      created_by: { id: accountId, name: '連携 太郎' },
    });
    // An id that is no uuid is a record that does not exist, as on every other path.
    expect((await get(tenantId, '/api/action_lists/not-a-uuid')).statusCode).toBe(404);
  });

  it("lists a list's institutions with master data, filtered by status", async () => {
    const all = await get(tenantId, `/api/action_lists/${older}/medical_institutions`);
    expect(all.statusCode, all.body).toBe(200);
    expect(all.json().meta.total_count).toBe(3);
    const order = all.json().data.map((i: { medical_institution: { id: string } }) => i.medical_institution.id);
    expect([...order].sort()).toEqual(
      institutions
        .slice(0, 3)
        .map((i) => i.id)
        .sort(),
    );
    const b = order.indexOf(institutions[1]!.id);
    expect(all.json().data[b]).toMatchObject({
      medical_institution: { id: institutions[1]!.id, name: institutions[1]!.name },
      status: 'actioned',
      updated_by: { id: accountId, name: '連携 太郎' },
    });
    const done = await get(tenantId, `/api/action_lists/${older}/medical_institutions?status=actioned`);
    expect(done.json().data).toHaveLength(1);
    const open = await get(
      tenantId,
      `/api/action_lists/${older}/medical_institutions?status=not_actioned&per_page=1&page=2`,
    );
    expect(open.json().meta).toMatchObject({ total_count: 2, total_pages: 2 });
    expect(open.json().data[0].medical_institution.id).toBe(
      order.filter((id: string) => id !== institutions[1]!.id)[1],
    );
    const bad = await get(tenantId, `/api/action_lists/${older}/medical_institutions?status=done`);
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('status');
  });

  it("exports a list's institutions as CSV", async () => {
    const res = await get(tenantId, `/api/action_lists/${older}/medical_institutions/export?status=actioned`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    const lines = res.body
      .replace(/^\ufeff/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('医療機関ID,医療機関名,住所,電話番号,運営状況,最終訪問日,対応状況,更新者,更新日時');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(institutions[1]!.id);
    expect(lines[1]).toContain('対応済み');
    // Japan time, as every export writes a moment: an item marked at 08:30 on the 1st is not the 30th.
    const listed = await get(tenantId, `/api/action_lists/${older}/medical_institutions?status=actioned`);
    expect(lines[1]!.endsWith(`,${japanDateTime(listed.json().data[0].updated_at)}`)).toBe(true);
  });

  it('lists the lists that hold an institution, with its status on each', async () => {
    const res = await get(tenantId, `/api/medical_institutions/${institutions[1]!.id}/action_lists`);
    expect(res.json()).toEqual([
      { id: older, name: '紹介減少先フォロー', status: 'in_progress', item_status: 'actioned' },
    ]);
    const first = await get(tenantId, `/api/medical_institutions/${institutions[0]!.id}/action_lists`);
    expect(first.json().map((l: { id: string }) => l.id)).toEqual([newer, older]);
    const none = await get(tenantId, `/api/medical_institutions/${institutions[4]!.id}/action_lists`);
    expect(none.json()).toEqual([]);
    const unknown = await get(tenantId, `/api/medical_institutions/${randomUUID()}/action_lists`);
    expect(unknown.statusCode).toBe(404);
  });

  it("answers 404 for another tenant's list and a deleted one, and shows another tenant nothing", async () => {
    const other = randomUUID();
    for (const url of [
      `/api/action_lists/${older}`,
      `/api/action_lists/${older}/medical_institutions`,
      `/api/action_lists/${older}/medical_institutions/export`,
    ]) {
      expect((await get(other, url)).statusCode, url).toBe(404);
    }
    expect((await get(tenantId, `/api/action_lists/${removed}/medical_institutions`)).statusCode).toBe(404);
    expect((await get(tenantId, `/api/action_lists/${removed}`)).statusCode).toBe(404);
    expect((await get(tenantId, `/api/action_lists/${randomUUID()}`)).statusCode).toBe(404);
    expect((await get(other, '/api/action_lists')).json().data).toEqual([]);
    expect((await get(other, `/api/medical_institutions/${institutions[0]!.id}/action_lists`)).json()).toEqual([]);
  });
});
