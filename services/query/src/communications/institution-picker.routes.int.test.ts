import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { featureKeys } from '@renkei/contracts';
import type { TestDatabase } from '@renkei/db';
import type { TestAuth } from '@renkei/service-kit/testing';
import { blankCommunication } from '@renkei/domain/testing';
import { startQueryTest, type QueryTest } from '../testing/query-test.ts';

let t: QueryTest;
let db: TestDatabase;
let app: FastifyInstance;
let testAuth: TestAuth;
let record: QueryTest['record'];
let settle: QueryTest['settle'];
let institutions: { id: string; name: string; address: string }[];

// Sapporo: far from the generated (Shizuoka) master, and every generated coordinate is cleared below.
const centre = { latitude: 43.06, longitude: 141.35 };

beforeAll(async () => {
  t = await startQueryTest({ master: { generated: { count: 14, seed: 11 } } });
  ({ db, app, testAuth, record, settle } = t);
  institutions = (
    await sql<{
      id: string;
      name: string;
      address: string;
    }>`SELECT id, name, address FROM ref.medical_institutions ORDER BY code`.execute(db.kysely)
  ).rows;
  await sql`UPDATE ref.medical_institutions SET latitude = NULL, longitude = NULL, running_status = 'open'`.execute(
    db.kysely,
  );
});

afterAll(async () => {
  await t?.close();
});

async function get(tenantId: string, url: string, accountId?: string) {
  const token = await testAuth.token({ tenantId, features: [...featureKeys], ...(accountId ? { accountId } : {}) });
  return app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
}

async function logCommunication(
  tenantId: string,
  userId: string,
  institutionId: string,
  actedDate: string,
  communicationType = 'visit',
) {
  const id = randomUUID();
  await record(
    tenantId,
    `communication-${id}`,
    'CommunicationCreated',
    blankCommunication(
      { communication_id: id, medical_institution_id: institutionId, user_id: userId, acted_date: actedDate },
      { communication_type: communicationType, tasks: [] },
    ),
  );
}

async function place(index: number, latitude: number | null, longitude: number | null, status = 'open') {
  await sql`UPDATE ref.medical_institutions SET latitude = ${latitude}, longitude = ${longitude},
    running_status = ${status} WHERE id = ${institutions[index]!.id}`.execute(db.kysely);
}

describe('recent institutions of the caller', () => {
  const tenant = randomUUID();
  const other = randomUUID();
  const user = randomUUID();
  const colleague = randomUUID();

  beforeAll(async () => {
    await logCommunication(tenant, user, institutions[0]!.id, '2026-03-01');
    await logCommunication(tenant, user, institutions[1]!.id, '2026-03-05', 'phone');
    await logCommunication(tenant, user, institutions[2]!.id, '2026-02-01');
    // A later record of the same institution moves it to the top, once.
    await logCommunication(tenant, user, institutions[0]!.id, '2026-03-10');
    // A colleague's record, and the same account id in another tenant: neither is the caller's.
    await logCommunication(tenant, colleague, institutions[3]!.id, '2026-04-01');
    await logCommunication(other, user, institutions[4]!.id, '2026-04-02');
    await settle();
  });

  it('lists the institutions of the caller’s own records, newest first, one row each', async () => {
    const res = await get(tenant, '/api/communications/recent_medical_institutions', user);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      data: [
        { ...institutions[0], last_acted_date: '2026-03-10' },
        { ...institutions[1], last_acted_date: '2026-03-05' },
        { ...institutions[2], last_acted_date: '2026-02-01' },
      ],
    });
  });

  it('never shows another tenant’s or another staff member’s records', async () => {
    const inOther = await get(other, '/api/communications/recent_medical_institutions', user);
    expect(inOther.json()).toEqual({ data: [{ ...institutions[4], last_acted_date: '2026-04-02' }] });
    const colleagues = await get(tenant, '/api/communications/recent_medical_institutions', colleague);
    expect(colleagues.json().data.map((i: { id: string }) => i.id)).toEqual([institutions[3]!.id]);
    const nobody = await get(randomUUID(), '/api/communications/recent_medical_institutions', user);
    expect(nobody.json()).toEqual({ data: [] });
  });

  it('gives at most ten institutions', async () => {
    const busy = randomUUID();
    const staff = randomUUID();
    for (let i = 0; i < 12; i++) await logCommunication(busy, staff, institutions[i]!.id, `2026-01-${10 + i}`);
    await settle();
    const res = await get(busy, '/api/communications/recent_medical_institutions', staff);
    const ids = res.json().data.map((i: { id: string }) => i.id);
    expect(ids).toEqual(
      institutions
        .slice(2, 12)
        .reverse()
        .map((i) => i.id),
    );
  });
});

describe('institutions near a point', () => {
  const tenant = randomUUID();
  const other = randomUUID();
  const user = randomUUID();
  const url = (q: string) => `/api/medical_institutions/nearby?${q}`;
  const atCentre = url(`latitude=${centre.latitude}&longitude=${centre.longitude}`);

  beforeAll(async () => {
    // 0.01° north: 1111.95 m (R·Δφ, R = 6371.0088 km). 0.01° east at 43.06°N: 812.43 m (× cos φ).
    await place(5, centre.latitude + 0.01, centre.longitude);
    await place(6, centre.latitude, centre.longitude + 0.01);
    await place(7, centre.latitude + 0.001, centre.longitude, 'closed');
    await place(8, centre.latitude - 0.04, centre.longitude); // ~4.4 km south
    await place(9, centre.latitude, centre.longitude - 0.02, 'suspended'); // ~1.6 km west
    await logCommunication(tenant, user, institutions[6]!.id, '2026-03-03');
    await logCommunication(tenant, user, institutions[6]!.id, '2026-02-03', 'new_visit');
    // A phone call is no visit, and another tenant's visit is not this tenant's.
    await logCommunication(tenant, user, institutions[5]!.id, '2026-03-04', 'phone');
    await logCommunication(other, user, institutions[5]!.id, '2026-03-05');
    await settle();
  });

  it('lists open institutions within the radius, nearest first, with the great-circle distance', async () => {
    const res = await get(tenant, atCentre, user);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data as { id: string; distance_m: number; last_visit_date: string | null }[];
    expect(data.map((d) => d.id)).toEqual([institutions[6]!.id, institutions[5]!.id, institutions[9]!.id]);
    expect(data[0]).toMatchObject({
      name: institutions[6]!.name,
      address: institutions[6]!.address,
      last_visit_date: '2026-03-03',
    });
    expect(Math.abs(data[0]!.distance_m - 812)).toBeLessThanOrEqual(3);
    expect(Math.abs(data[1]!.distance_m - 1112)).toBeLessThanOrEqual(3);
    expect(data[1]!.last_visit_date).toBeNull();
  });

  it('takes a radius, and shows each tenant its own visits only', async () => {
    const wide = await get(tenant, `${atCentre}&radius_m=5000`, user);
    expect(wide.json().data.map((d: { id: string }) => d.id)).toEqual([
      institutions[6]!.id,
      institutions[5]!.id,
      institutions[9]!.id,
      institutions[8]!.id,
    ]);
    const narrow = await get(tenant, `${atCentre}&radius_m=1000`, user);
    expect(narrow.json().data.map((d: { id: string }) => d.id)).toEqual([institutions[6]!.id]);
    const theirs = await get(other, atCentre, user);
    const visits = Object.fromEntries(
      (theirs.json().data as { id: string; last_visit_date: string | null }[]).map((d) => [d.id, d.last_visit_date]),
    );
    expect(visits).toEqual({
      [institutions[6]!.id]: null,
      [institutions[5]!.id]: '2026-03-05',
      [institutions[9]!.id]: null,
    });
  });

  it('answers an empty list where nothing is near', async () => {
    const res = await get(tenant, url('latitude=26.2&longitude=127.7'), user);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: [] });
  });

  it('refuses coordinates outside Japan, missing or not numbers, naming the fields', async () => {
    const fields = async (q: string) => {
      const res = await get(tenant, url(q), user);
      expect(res.statusCode, res.body).toBe(422);
      return (res.json().errors as { field: string; message: string }[]).map((e) => e.field).sort();
    };
    expect(await fields('latitude=10&longitude=141')).toEqual(['latitude']);
    expect(await fields('latitude=35&longitude=abc')).toEqual(['longitude']);
    expect(await fields('')).toEqual(['latitude', 'longitude']);
    expect(await fields('latitude=47&longitude=200')).toEqual(['latitude', 'longitude']);
    expect(await fields(`latitude=35&longitude=139&radius_m=50000`)).toEqual(['radius_m']);
    const res = await get(tenant, url('latitude=10&longitude=141'), user);
    expect(res.json().errors[0].message).toBe('緯度は20〜46の範囲で指定してください');
  });
});
