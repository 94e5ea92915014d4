import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '@renkei/db';
import type { EventStore } from '@renkei/event-store';
import type { IdentityConfig } from '@renkei/identity';
import type { AuthOptions } from '@renkei/service-kit';
import { openDemoCommandClient } from './demo-command-client.ts';

/**
 * The demo tenant's alert conditions, created by the owner through the command service under fixed
 * Idempotency-Keys, so a start that stopped half-way repeats nothing. The worker evaluates each one
 * when it is created and again when the demo's referral upload completes, so /alerts shows real alerts
 * from the demo referral data on the first start; nothing here writes an alert.
 */

const endpointId = 'alerts.createCondition';
const conditions = [
  {
    name: '紹介減少（前月比50%以上減）',
    type: 'referral',
    triggers: { referral_change_rate: { direction: 'decrease', rate: 50 } },
  },
  {
    name: '90日以上未訪問の紹介元',
    type: 'communication',
    // Referrers: a referral a month on average over the last half year.
    triggers: {
      communication_visit: { days_without_visit: 90 },
      referral_average: { comparison: 'gte', average: 1, months: 6 },
    },
  },
  {
    name: '紹介月平均3件以上',
    type: 'referral',
    triggers: { referral_average: { comparison: 'gte', average: 3, months: 6 } },
  },
] as const;

export interface DemoAlertsSeedDeps {
  db: Database;
  store: EventStore;
  identityConfig: IdentityConfig;
  commandAuth: AuthOptions;
  tenantSlug: string;
  tenantId: string;
  accounts: { owner: string; member: string };
  logger?: Logger;
}

/** Seeds the demo tenant's alert conditions unless the last one is stored already. */
export async function seedDemoAlerts(deps: DemoAlertsSeedDeps): Promise<{ requests: number } | undefined> {
  const { db, tenantId } = deps;
  if (deps.identityConfig.externalAuthority) return undefined;
  const key = (i: number) => `demo-alert-condition-${i}`;
  const { rows: done } = await sql`
    SELECT 1 FROM cmd.idempotency_keys
     WHERE tenant_id = ${tenantId} AND endpoint = ${endpointId} AND key = ${key(conditions.length - 1)}
       AND response IS NOT NULL`.execute(db.kysely);
  if (done.length > 0) return undefined;
  const client = await openDemoCommandClient(deps);
  try {
    for (const [i, condition] of conditions.entries())
      await client.call('owner', 'POST', '/alert_conditions', condition, key(i));
    deps.logger?.info({ conditions: conditions.length }, 'demo alert conditions seeded');
    return { requests: conditions.length };
  } finally {
    await client.close();
  }
}
