import { sql } from 'kysely';
import type { Logger } from 'pino';
import { buildCommandApp } from '@renkei/command';
import type { Database } from '@renkei/db';
import type { EventStore } from '@renkei/event-store';
import { issueAccessToken, type IdentityConfig } from '@renkei/identity';
import type { AuthOptions } from '@renkei/service-kit';

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
  const app = await buildCommandApp({
    db,
    store: deps.store,
    auth: deps.commandAuth,
    logger: false,
    rateLimit: false,
    underPressure: false,
    // A seed's app takes no tracking hits: it must not store what another install's dead process left.
    emailTrackingJournalDir: null,
  });
  try {
    const token = await issueAccessToken(
      { db, config: deps.identityConfig },
      { tenantSlug: deps.tenantSlug, email: deps.accounts.owner, audience: 'command' },
    );
    for (const [i, condition] of conditions.entries()) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/alert_conditions',
        headers: { authorization: `Bearer ${token}`, 'idempotency-key': key(i) },
        payload: condition,
      });
      if (res.statusCode >= 300)
        throw new Error(`demo seed: POST /alert_conditions answered ${res.statusCode}: ${res.body}`);
    }
    deps.logger?.info({ conditions: conditions.length }, 'demo alert conditions seeded');
    return { requests: conditions.length };
  } finally {
    await app.close();
  }
}
