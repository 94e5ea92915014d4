import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '@renkei/db';
import type { EventStore } from '@renkei/event-store';
import { addTenant, migrateIdentity, updateTenant, type IdentityConfig } from '@renkei/identity';
import { generateInstitutionMaster, importInstitutionMaster, type SyncRunResult } from '@renkei/institution-master';
import type { AuthOptions } from '@renkei/service-kit';
import { seedDemoCrm } from './demo-crm-seed.ts';
import { seedDemoReferrals } from './demo-referrals-seed.ts';
import { seedDemoCommunications } from './demo-communications-seed.ts';
import { seedDemoVocs } from './demo-vocs-seed.ts';
import { seedDemoActionLists } from './demo-action-lists-seed.ts';
import { seedDemoAlerts } from './demo-alerts-seed.ts';
import { seedDemoDashboards } from './demo-dashboards-seed.ts';

/** The demo install's tenant and sign-ins (README documents them; the web e2e tests use them). */
export const demoTenant = {
  slug: 'demo',
  name: '駿河総合医療センター',
  prefecture: '静岡県',
  latitude: 34.96,
  longitude: 138.4,
} as const;

export const demoAccounts = {
  owner: { email: 'owner@demo.example.jp', password: 'Renkei-Demo-2026', username: '佐藤 美咲' },
  member: { email: 'member@demo.example.jp', password: 'Renkei-Demo-2026', username: '高橋 健太' },
  /** The vendor's support account: the only one that sees /tenant_setting. */
  support: { email: 'support@demo.example.jp', password: 'Renkei-Demo-2026', username: '連携サポート' },
} as const;

export interface DemoSeedResult {
  tenantId: string;
  institutions: SyncRunResult | undefined;
  /** Command requests the CRM data took (undefined: not seeded on this start). */
  crmRequests: number | undefined;
}

async function demoTenantId(db: Database): Promise<string | undefined> {
  const { rows } = await sql<{ id: string }>`SELECT id FROM identity.tenants WHERE slug = ${demoTenant.slug}`.execute(
    db.kysely,
  );
  return rows[0]?.id;
}

export async function hasDemoTenant(db: Database): Promise<boolean> {
  return (await demoTenantId(db)) !== undefined;
}

/** What the CRM part of the seed needs to act as the demo accounts through the command service. */
export interface DemoCrmSeedOptions {
  identityConfig: IdentityConfig;
  commandAuth: AuthOptions;
}

/**
 * First start: the demo tenant with an owner and a member, and the demo region's medical-institution
 * master (静岡県, generated deterministically). Then, with `crm`, the tenant's CRM data (tags,
 * phases, notes, doctors, labels; see demo-crm-seed.ts) unless a previous start wrote it already. A
 * later start finds both and writes nothing.
 */
export async function seedDemo(deps: {
  db: Database;
  store: EventStore;
  dataDir: string;
  logger?: Logger;
  institutionCount?: number;
  crm?: DemoCrmSeedOptions;
}): Promise<DemoSeedResult | undefined> {
  await migrateIdentity({ db: deps.db });
  const existingId = await demoTenantId(deps.db);
  if (existingId) {
    // An install seeded before the CRM data existed (or stopped half-way through it) gets it now.
    if (deps.crm) await seedCrm(deps, deps.crm, existingId);
    return undefined;
  }

  const { tenantId } = await addTenant(
    { db: deps.db, store: deps.store },
    {
      slug: demoTenant.slug,
      name: demoTenant.name,
      ownerEmail: demoAccounts.owner.email,
      ownerName: demoAccounts.owner.username,
      password: demoAccounts.owner.password,
      demo: true,
      prefecture: demoTenant.prefecture,
      latitude: demoTenant.latitude,
      longitude: demoTenant.longitude,
      members: [
        {
          username: demoAccounts.member.username,
          email: demoAccounts.member.email,
          password: demoAccounts.member.password,
          role: 'member',
          isConfirmed: true,
        },
        {
          username: demoAccounts.support.username,
          email: demoAccounts.support.email,
          password: demoAccounts.support.password,
          role: 'owner',
          csAccount: true,
          isConfirmed: true,
        },
        // Invited and not yet registered, so /accounts shows an invitation (no password: no one can sign in).
        { username: '山本 彩', email: 'yamamoto@demo.example.jp', role: 'member', isConfirmed: false },
      ],
    },
  );

  // The demo shows partner phases (フェーズ): a tenant setting, published as TenantSettingsChanged.
  await updateTenant({ db: deps.db, store: deps.store }, demoTenant.slug, { enabledPhase: true });

  const masterFile = path.join(deps.dataDir, 'demo', 'institution-master.csv');
  fs.mkdirSync(path.dirname(masterFile), { recursive: true });
  await generateInstitutionMaster(masterFile, { count: deps.institutionCount ?? 3000, seed: 1 });
  const institutions = await importInstitutionMaster(deps.db, masterFile);
  deps.logger?.info({ institutions: institutions.insertedCount }, 'demo data seeded');
  const crm = deps.crm ? await seedCrm(deps, deps.crm, tenantId) : undefined;
  return { tenantId, institutions, crmRequests: crm?.requests };
}

async function seedCrm(
  deps: { db: Database; store: EventStore; dataDir: string; logger?: Logger },
  crm: DemoCrmSeedOptions,
  tenantId: string,
): Promise<{ requests: number } | undefined> {
  const seedDeps = {
    db: deps.db,
    store: deps.store,
    identityConfig: crm.identityConfig,
    commandAuth: crm.commandAuth,
    tenantSlug: demoTenant.slug,
    tenantId,
    accounts: { owner: demoAccounts.owner.email, member: demoAccounts.member.email },
    ...(deps.logger ? { logger: deps.logger } : {}),
  };
  const result = await seedDemoCrm(seedDeps);
  await seedDemoCommunications(seedDeps);
  await seedDemoVocs(seedDeps);
  await seedDemoActionLists(seedDeps);
  await seedDemoReferrals({ ...deps, ...crm, tenantSlug: demoTenant.slug, ownerEmail: demoAccounts.owner.email });
  await seedDemoAlerts(seedDeps);
  await seedDemoDashboards(seedDeps);
  return result;
}
