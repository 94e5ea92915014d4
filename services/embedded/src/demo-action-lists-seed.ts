import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '@renkei/db';
import type { EventStore } from '@renkei/event-store';
import type { IdentityConfig } from '@renkei/identity';
import type { AuthOptions } from '@renkei/service-kit';
import { openDemoCommandClient } from './demo-command-client.ts';
import { demoReferrersOf } from './demo-referrers.ts';

/**
 * The demo tenant's action lists: referrers whose referrals stopped (to follow up), new clinics to
 * greet, and the year-end card list (done). Written through the command service in a handful of bulk
 * calls under fixed Idempotency-Keys, the finished list last, so a start that stopped half-way repeats
 * nothing and a later start skips it all.
 */

const endpointId = 'actionLists.create';
const key = (i: number) => `demo-action-list-${i}`;

export interface DemoActionListsSeedDeps {
  db: Database;
  store: EventStore;
  identityConfig: IdentityConfig;
  commandAuth: AuthOptions;
  tenantSlug: string;
  tenantId: string;
  accounts: { owner: string; member: string };
  logger?: Logger;
}

export async function seedDemoActionLists(deps: DemoActionListsSeedDeps): Promise<{ requests: number } | undefined> {
  const { db, tenantId } = deps;
  if (deps.identityConfig.externalAuthority) return undefined;
  const { rows: done } = await sql`
    SELECT 1 FROM cmd.idempotency_keys
     WHERE tenant_id = ${tenantId} AND endpoint = ${endpointId} AND key = ${key(2)} AND response IS NOT NULL`.execute(
    db.kysely,
  );
  if (done.length > 0) return undefined;

  const referrers = await demoReferrersOf(db);
  if (referrers.length === 0) return undefined;
  // Those whose referrals stopped come first; the list is topped up with the smallest referrers.
  const stopped = referrers.filter((r) => r.stoppedFrom !== null).map((r) => r.id);
  const dropped = [...new Set([...stopped, ...referrers.slice(-12).map((r) => r.id)])].slice(0, 15);
  const referring = new Set(referrers.map((r) => r.id));
  // Open clinics (no beds) of the demo region that refer nothing yet: the ones to go and greet.
  const region = await sql<{ prefecture_code: number }>`
    SELECT prefecture_code FROM ref.medical_institutions WHERE id = ${referrers[0]!.id}`.execute(db.kysely);
  const { rows: clinics } = await sql<{ id: string }>`
    SELECT id FROM ref.medical_institutions
     WHERE running_status = 'open' AND coalesce(bed_count, 0) = 0
       AND prefecture_code = ${region.rows[0]?.prefecture_code ?? 0}
     ORDER BY code DESC LIMIT 60`.execute(db.kysely);
  const newClinics = clinics
    .map((c) => c.id)
    .filter((id) => !referring.has(id))
    .slice(0, 12);
  const cardList = referrers.slice(0, 30).map((r) => r.id);

  const client = await openDemoCommandClient(deps);
  try {
    const call = client.call;
    const create = (by: 'owner' | 'member', i: number, name: string, ids: string[]) =>
      call(by, 'POST', '/action_lists', { name, medical_institution_ids: ids }, key(i));
    // Item statuses are sets: sent again after a half-way start they change nothing.
    const mark = (by: 'owner' | 'member', id: string, ids: string[]) =>
      ids.length > 0 &&
      call(by, 'PUT', `/action_lists/${id}/medical_institutions/status`, {
        medical_institution_ids: ids,
        status: 'actioned',
      });

    const follow = await create('owner', 0, '紹介減少先フォロー（11月）', dropped);
    await mark(
      'member',
      follow.id,
      dropped.filter((_, i) => i % 3 === 0),
    );
    const greet = await create('member', 1, '新規開業クリニック挨拶回り', newClinics);
    await mark('member', greet.id, newClinics.slice(0, 3));
    const cards = await create('owner', 2, '年末挨拶状送付先', cardList);
    await mark('owner', cards.id, cardList);
    await call('owner', 'PUT', `/action_lists/${cards.id}/status`, { status: 'completed' });
    deps.logger?.info({ actionLists: 3, requests: client.requests }, 'demo action lists seeded');
    return { requests: client.requests };
  } finally {
    await client.close();
  }
}
