import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '@renkei/db';
import type { EventStore } from '@renkei/event-store';
import type { IdentityConfig } from '@renkei/identity';
import type { AuthOptions } from '@renkei/service-kit';
import { openDemoCommandClient } from './demo-command-client.ts';

/**
 * The demo tenant's dashboard: two reports (the last complete 年度's referrers by month, and the own
 * departments' figures) and one dashboard showing both, created by the owner through the command
 * service under fixed Idempotency-Keys, so a start that stopped half-way repeats nothing.
 */

const endpointId = 'dashboards.create';
const dashboardKey = 'demo-dashboard-0';

/** The last complete 年度 (April–March) in Japan: the demo's referral files cover it whole. */
function lastFiscalYear(now: Date): { from: string; to: string } {
  const jst = new Date(now.getTime() + 9 * 3600_000);
  const current = jst.getUTCMonth() + 1 >= 4 ? jst.getUTCFullYear() : jst.getUTCFullYear() - 1;
  return { from: `${current - 1}-04-01`, to: `${current}-03-31` };
}

export interface DemoDashboardsSeedDeps {
  db: Database;
  store: EventStore;
  identityConfig: IdentityConfig;
  commandAuth: AuthOptions;
  tenantSlug: string;
  tenantId: string;
  accounts: { owner: string; member: string };
  logger?: Logger;
  now?: Date;
}

/** Seeds the demo tenant's dashboard (and its two reports) unless the dashboard is stored already. */
export async function seedDemoDashboards(deps: DemoDashboardsSeedDeps): Promise<{ requests: number } | undefined> {
  const { db, tenantId } = deps;
  if (deps.identityConfig.externalAuthority) return undefined;
  const { rows: done } = await sql`
    SELECT 1 FROM cmd.idempotency_keys
     WHERE tenant_id = ${tenantId} AND endpoint = ${endpointId} AND key = ${dashboardKey}
       AND response IS NOT NULL`.execute(db.kysely);
  if (done.length > 0) return undefined;
  const period = lastFiscalYear(deps.now ?? new Date());
  const client = await openDemoCommandClient(deps);
  try {
    const referrers = await client.call(
      'owner',
      'POST',
      '/medical_institution_reports/definitions',
      {
        name: '紹介元ランキング（前年度）',
        display_items: [
          { item_key: 'medical_institution_name' },
          { item_key: 'city' },
          { item_key: 'referral_count' },
          { item_key: 'hospital_admission_rate' },
        ],
        sort_conditions: [{ item_key: 'referral_count', direction: 'desc' }],
        aggregation_settings: { period, period_unit: 'fiscal_year' },
      },
      'demo-dashboard-report-0',
    );
    const departments = await client.call(
      'owner',
      'POST',
      '/own_department_reports/definitions',
      {
        name: '診療科別紹介実績（前年度）',
        display_items: [
          { item_key: 'own_department_name' },
          { item_key: 'referral_count' },
          { item_key: 'hospital_admission_count' },
          { item_key: 'referring_institution_count' },
        ],
        sort_conditions: [{ item_key: 'referral_count', direction: 'desc' }],
        aggregation_settings: { period, period_unit: 'fiscal_year' },
      },
      'demo-dashboard-report-1',
    );
    await client.call(
      'owner',
      'POST',
      '/dashboards',
      {
        name: '月次連携会議',
        contents: [
          { report_type: 'medical_institution_report', report_id: referrers.id },
          { report_type: 'own_department_report', report_id: departments.id },
        ],
      },
      dashboardKey,
    );
    deps.logger?.info({ dashboards: 1 }, 'demo dashboard seeded');
    return { requests: client.requests };
  } finally {
    await client.close();
  }
}
