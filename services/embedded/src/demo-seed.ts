import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '@renkei/db';
import type { EventStore } from '@renkei/event-store';
import { addTenant, migrateIdentity, updateTenant } from '@renkei/identity';
import { generateInstitutionMaster, importInstitutionMaster, type SyncRunResult } from '@renkei/institution-master';

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
} as const;

export interface DemoSeedResult {
  tenantId: string;
  institutions: SyncRunResult | undefined;
}

export async function hasDemoTenant(db: Database): Promise<boolean> {
  const { rows } = await sql`SELECT 1 FROM identity.tenants WHERE slug = ${demoTenant.slug}`.execute(db.kysely);
  return rows.length > 0;
}

/**
 * First start only: the demo tenant with an owner and a member, and the demo region's
 * medical-institution master (静岡県, generated deterministically). A second start finds the tenant
 * and does nothing.
 */
export async function seedDemo(deps: {
  db: Database;
  store: EventStore;
  dataDir: string;
  logger?: Logger;
  institutionCount?: number;
}): Promise<DemoSeedResult | undefined> {
  await migrateIdentity({ db: deps.db });
  if (await hasDemoTenant(deps.db)) return undefined;

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
  return { tenantId, institutions };
}
