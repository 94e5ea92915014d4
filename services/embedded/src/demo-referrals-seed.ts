import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import { buildCommandApp } from '@renkei/command';
import type { Database } from '@renkei/db';
import { ownDepartmentsAggregate, segmentationSettingAggregate, uuidV5 } from '@renkei/domain';
import { streamId, type EventStore } from '@renkei/event-store';
import { issueAccessToken, updateTenant, type IdentityConfig } from '@renkei/identity';
import { findDepartmentByName } from '@renkei/institution-master';
import { generateDemoReferralFiles } from '@renkei/referral-files';
import type { AuthOptions } from '@renkei/service-kit';
import { streamExists } from './demo-crm-seed.ts';
import { dayInJapan, demoReferralSeed, demoReferralSources } from './demo-referrers.ts';

export interface DemoReferralSeedDeps {
  db: Database;
  store: EventStore;
  dataDir: string;
  identityConfig: IdentityConfig;
  commandAuth: AuthOptions;
  tenantSlug: string;
  ownerEmail: string;
  logger?: Logger | undefined;
  /** Referrals in the first fiscal year (the generator's trends change later years). */
  referralsPerYear?: number | undefined;
}

const demoDepartmentNamespace = '5b0f3c1e-8d47-4f6a-9c2e-3a1d7e6b9f40';

/**
 * The demo's segments over the twelve months before this one: with the generator's volumes (about 3,000
 * referrals a year from 400 clinics, a few large) a handful of key partners, a dozen or so main ones and
 * some fifty to develop.
 */
const demoSegments = [
  { label: 'A 重点連携先', referral_count_more_equal: 100, referral_admission_rate_more_equal: 30 },
  { label: 'B 主要連携先', referral_count_more_equal: 40, referral_admission_rate_more_equal: null },
  { label: 'C 育成対象', referral_count_more_equal: 12, referral_admission_rate_more_equal: null },
];

/**
 * The demo tenant's referral data: three fiscal years of a 紹介 list and a 逆紹介 list in the hospital's
 * own column names, and an FF1 per year for the same patients (libs/referral-files' generator), sent
 * through the same calls an owner uses — the column mappings saved (PUT /data_uploads/mapping_profiles)
 * and each file uploaded (POST /data_uploads) — so the worker imports them as any upload, D and EF files
 * last. Once per install (a marker file after the last upload).
 */
export async function seedDemoReferrals(deps: DemoReferralSeedDeps): Promise<{ uploads: number } | undefined> {
  const dir = path.join(deps.dataDir, 'demo', 'referrals');
  const marker = path.join(dir, '.uploaded');
  if (fs.existsSync(marker) || deps.identityConfig.externalAuthority) return undefined;
  const { db } = deps;

  const sources = await demoReferralSources(db);
  if (!sources) return undefined;
  const { own, institutions, fiscalYears } = sources;
  const tenant = (
    await sql<{ id: string; medical_institution_id: string | null }>`
      SELECT id, medical_institution_id FROM identity.tenants WHERE slug = ${deps.tenantSlug}`.execute(db.kysely)
  ).rows[0];
  if (tenant && !tenant.medical_institution_id)
    await updateTenant({ db, store: deps.store }, deps.tenantSlug, { medicalInstitutionId: own.id });
  const demo = await generateDemoReferralFiles(dir, {
    seed: demoReferralSeed,
    institutions,
    ownInstitutionCode: own.code,
    fiscalYears,
    // Yesterday in Japan: the demo hospital exported its files this morning.
    until: dayInJapan(-1),
    referralsPerYear: deps.referralsPerYear ?? 3000,
    otherAdmissionsPerYear: 800,
  });

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
  let uploads = 0;
  try {
    const token = await issueAccessToken(
      { db, config: deps.identityConfig },
      { tenantSlug: deps.tenantSlug, email: deps.ownerEmail, audience: 'command' },
    );
    const authorization = `Bearer ${token}`;
    const profiles = [
      { id: randomUUID(), import_type: 'referral', name: '紹介リストの対応付け', mapping: demo.referralMapping },
      {
        id: randomUUID(),
        import_type: 'reverse_referral',
        name: '逆紹介リストの対応付け',
        mapping: demo.reverseReferralMapping,
      },
    ] as const;
    // The hospital's own departments, named as its lists name them: referrals are matched to them by name
    // as of the upload, so without them every figure by 自院診療科 would read 「未設定」. An owner's own list
    // is kept; the ids are fixed so a start that stopped half-way sets the same list again.
    const hasOwnDepartments =
      tenant !== undefined && (await streamExists(deps.store, streamId(ownDepartmentsAggregate, tenant.id), tenant.id));
    if (!hasOwnDepartments) {
      const departments = await app.inject({
        method: 'PUT',
        url: '/api/own_medical_institution/departments',
        headers: { authorization },
        payload: {
          own_departments: demo.ownDepartments.map((name) => {
            const master = findDepartmentByName(name);
            return {
              id: uuidV5(demoDepartmentNamespace, `${deps.tenantSlug}|${name}`),
              name,
              // The master's department ids as GET /departments answers them.
              department_id: master ? String(master.id).padStart(2, '0') : null,
            };
          }),
        },
      });
      if (departments.statusCode !== 200)
        throw new Error(`demo seed: own departments answered ${departments.statusCode}: ${departments.body}`);
    }
    // Segments as a liaison office sets them (the twelve months before this one): without them every
    // institution reads 「その他」 on its page and in the partner search. An owner's own setting is kept.
    const hasSegmentation =
      tenant !== undefined &&
      (await streamExists(deps.store, streamId(segmentationSettingAggregate, tenant.id), tenant.id));
    if (!hasSegmentation) {
      const segmentation = await app.inject({
        method: 'PUT',
        url: '/api/segmentation_setting',
        headers: { authorization },
        payload: {
          rest_segment_label: 'その他',
          excluded_own_department_ids: [],
          segments: demoSegments.map((s, i) => ({ id: null, priority: i + 1, ...s })),
        },
      });
      if (segmentation.statusCode !== 200)
        throw new Error(`demo seed: segmentation answered ${segmentation.statusCode}: ${segmentation.body}`);
    }
    const saved = await app.inject({
      method: 'PUT',
      url: '/api/data_uploads/mapping_profiles',
      headers: { authorization },
      payload: { profiles },
    });
    if (saved.statusCode !== 200)
      throw new Error(`demo seed: mapping profiles answered ${saved.statusCode}: ${saved.body}`);
    // FF1 first, then the lists: the join works in either order, and the referral page fills as each lands.
    // D and EF last: they only add DPC codes (and operations FF1 lacks) to stays already shown.
    const order = ['ff1_file', 'referral', 'reverse_referral', 'd_file', 'hospital_admission_ef_file'];
    const files = demo.files
      .filter((f) => order.includes(f.kind))
      .sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
    for (const file of files) {
      const boundary = `----renkei-demo-${randomUUID()}`;
      const profile = profiles.find((p) => p.import_type === file.kind);
      const fields = [
        `import_type\r\n\r\n${file.kind}`,
        ...(profile ? [`mapping_profile_id\r\n\r\n${profile.id}`] : []),
      ];
      const payload = Buffer.concat([
        Buffer.from(
          fields
            .map(
              (f) =>
                `--${boundary}\r\nContent-Disposition: form-data; name="${f.split('\r\n')[0]}"\r\n\r\n${f.split('\r\n\r\n')[1]}\r\n`,
            )
            .join(''),
        ),
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${path.basename(file.path)}"\r\nContent-Type: text/csv\r\n\r\n`,
        ),
        fs.readFileSync(file.path),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const res = await app.inject({
        method: 'POST',
        url: '/api/data_uploads',
        headers: { authorization, 'content-type': `multipart/form-data; boundary=${boundary}` },
        payload,
      });
      if (res.statusCode !== 202)
        throw new Error(`demo seed: upload of ${file.kind} answered ${res.statusCode}: ${res.body}`);
      uploads++;
    }
  } finally {
    await app.close();
  }
  fs.writeFileSync(marker, new Date().toISOString());
  deps.logger?.info({ uploads }, 'demo referral data uploaded; the worker imports it');
  return { uploads };
}
