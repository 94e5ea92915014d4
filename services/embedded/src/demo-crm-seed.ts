import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import { buildCommandApp } from '@renkei/command';
import type { Database } from '@renkei/db';
import {
  eventDecoder,
  medicalInstitutionCrmAggregate,
  medicalInstitutionCrmEventSchemas,
  medicalInstitutionCrmKey,
  medicalInstitutionLabelEventSchemas,
  normalizeTagName,
  tagEventSchemas,
} from '@renkei/domain';
import { StreamNotFoundError, streamId, type EventStore, type Position } from '@renkei/event-store';
import { issueAccessToken, type IdentityConfig } from '@renkei/identity';
import type { AuthOptions } from '@renkei/service-kit';
import { seedDemoEmails } from './demo-email-seed.ts';
import { demoReferrersOf } from './demo-referrers.ts';

/**
 * The demo tenant's CRM data (tags, phases, memos, special notes, doctors, institution labels), so
 * partner management and the CRM page have something to show. Written through the command service's
 * own endpoints (a private instance without rate limit or load shedding, same handlers, same events),
 * never into read models. Deterministic: the same institutions get the same data on every install.
 */

const demoTags = [
  { name: '紹介元重点', group_name: '紹介', description: '紹介件数の多い、関係を維持したい医療機関' },
  { name: '逆紹介先', group_name: '紹介', description: '退院後の患者をお願いしている医療機関' },
  { name: '訪問予定', group_name: '営業活動', description: '今月中に訪問を予定している' },
  { name: '新規開業', group_name: '営業活動', description: '開業から1年以内。早めに挨拶に伺う' },
  { name: '在宅連携', group_name: '連携', description: '在宅医療・訪問診療で連携している' },
  { name: '連携協定締結', group_name: '連携', description: '連携協定を結んでいる' },
  { name: '救急受入相談', group_name: '連携', description: '救急の受け入れについて相談を受けている' },
  { name: '休診注意', group_name: '注意', description: '休診日・診療時間が不規則。訪問前に電話で確認' },
] as const;

const demoPhases = [
  { name: '未接触', description: 'まだ訪問も連絡もしていない' },
  { name: '初回訪問済', description: '挨拶・名刺交換まで済んでいる' },
  { name: '定期訪問', description: '月1回程度、定期的に訪問している' },
  { name: '紹介実績あり', description: '直近1年に紹介を受けている' },
] as const;

const windowLabel = {
  name: '連携窓口',
  description: '紹介・逆紹介の連絡先（部署と担当者）',
  component_type: 'text',
  selections: [],
} as const;
const agreementLabel = {
  name: '連携協定',
  description: '当院との連携協定の状況',
  component_type: 'select',
  selections: [{ label: '締結済' }, { label: '協議中' }, { label: '未締結' }],
} as const;

const memos = [
  '院長は火曜・木曜の午後なら面会可。事前に事務長へ電話を入れること。',
  '地域連携室の担当が4月に交代。新任の担当者へ挨拶が必要。',
  '整形外科の術後リハビリの受け入れ先を探しているとのこと。',
  '紹介状の返書が遅いとの指摘あり。返書の状況を確認して報告する。',
  '訪問時は駐車場が狭いため、公共交通機関の利用を推奨。',
  '在宅療養支援診療所。夜間の急変時の受け入れについて相談を受けた。',
  '年2回の連携の会に毎回参加。次回の案内を送付すること。',
  '内視鏡検査の予約枠について問い合わせあり。外来と調整中。',
  '院長の専門は循環器。心臓リハビリの紹介が見込める。',
  '前回訪問時、糖尿病教育入院の案内資料を希望された。',
  '副院長が当院出身。連携の窓口は副院長が望ましい。',
  '訪問診療の患者が増えており、レスパイト入院の相談が多い。',
];
const specialNotes = [
  '水曜午後・土曜は休診。訪問不可。',
  '紹介患者の診療情報提供書は必ずFAXで先に送ること。',
  '院長は面会予約制。アポなし訪問は断られる。',
  '救急車の受け入れ要請は夜間も当直医へ直接。',
  'クレーム対応中（2026年3月）。訪問は連携室長が同行すること。',
  '個人情報の取り扱いについて書面での同意が必要。',
];
const windows = ['地域連携室 田中様', '医事課 山本様', '事務長 中村様', '地域医療連携センター 小林様', '看護部 加藤様'];
/** `mail`: the local part of the address some doctors gave (an email campaign can pick them). */
const doctors = [
  { name: '渡辺 誠', division: '内科', position: '院長', phone_number: '054-200-1001', mail: 'm.watanabe' },
  { name: '伊藤 由美', division: '小児科', position: '副院長', phone_number: null, mail: null },
  { name: '山田 浩二', division: '整形外科', position: '部長', phone_number: '054-200-1003', mail: 'yamada' },
  { name: '中島 聡子', division: '循環器内科', position: '医長', phone_number: null, mail: 'nakajima.s' },
  { name: '松本 隆', division: '外科', position: '院長', phone_number: '054-200-1005', mail: null },
  { name: '井上 香織', division: '皮膚科', position: '', phone_number: null, mail: null },
] as const;

/** The largest referrers that always get CRM data (tags, phase; notes and doctors for the first few). */
const demoCrmPartners = 30;

/** mulberry32: a tiny seeded generator, so every install picks the same institutions. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Institution {
  id: string;
  name: string;
  hospital: boolean;
}

interface InstitutionPlan {
  institution: Institution;
  tags: string[];
  phase: string | null;
  memo: string | null;
  specialNote: string | null;
  window: string | null;
  agreement: string | null;
  doctors: (typeof doctors)[number][];
  /** Who makes the change (the history shows both demo accounts). */
  by: 'owner' | 'member';
}

/**
 * What each demo institution gets; `institutions` in code order (the master is generated with a fixed seed),
 * `partners` the largest referrers of the demo's referral files by id, largest first (rank 0).
 */
function planDemoCrm(institutions: readonly Institution[], partners: ReadonlyMap<string, number>): InstitutionPlan[] {
  const rand = random(20260401);
  // The partners' own draws: the others' stay those of installs seeded before partners were planned.
  const partnerRand = random(20261129);
  const plans: InstitutionPlan[] = [];
  const partnerPlans: [InstitutionPlan, number][] = [];
  for (const institution of institutions) {
    // About one in ten institutions: a few hundred of the 3,000. And every large referrer.
    const drawn = rand() < 0.1;
    const rank = partners.get(institution.id);
    if (!drawn && rank === undefined) continue;
    const r = drawn ? rand : partnerRand;
    const pickWith = <T>(items: readonly T[]) => items[Math.floor(r() * items.length)]!;
    const tags = new Set<string>();
    const count = 1 + Math.floor(r() * 3);
    for (let i = 0; i < count; i++) {
      const candidates = demoTags
        .map((t) => t.name)
        .filter((n) => (institution.hospital ? n !== '新規開業' && n !== '在宅連携' : n !== '救急受入相談'));
      tags.add(pickWith(candidates));
    }
    const plan: InstitutionPlan = {
      institution,
      tags: [...tags],
      phase: r() < 0.6 ? pickWith(demoPhases).name : null,
      memo: null,
      specialNote: null,
      window: null,
      agreement: null,
      doctors: [],
      by: r() < 0.3 ? 'member' : 'owner',
    };
    plans.push(plan);
    if (rank !== undefined) partnerPlans.push([plan, rank]);
  }
  // Notes, labels and doctors on a handful of the tagged ones, spread over the list.
  const pick = <T>(items: readonly T[]) => items[Math.floor(rand() * items.length)]!;
  plans.forEach((p, i) => {
    if (i % 23 === 0) p.memo = memos[(i / 23) % memos.length]!;
    if (i % 47 === 5) p.specialNote = specialNotes[Math.floor(i / 47) % specialNotes.length]!;
    if (i % 5 === 1) p.window = windows[i % windows.length]!;
    if (i % 5 === 1 || i % 7 === 2) p.agreement = pick(agreementLabel.selections).label;
    if (i % 41 === 3) p.doctors = doctors.filter((_, d) => d % 3 === Math.floor(i / 41) % 3);
  });
  // The large referrers look like the partners they are: the ones a liaison office knows best.
  for (const [p, rank] of partnerPlans) {
    p.phase = rank < 15 ? '紹介実績あり' : '定期訪問';
    if (rank < 10 && !p.tags.includes('紹介元重点')) p.tags = ['紹介元重点', ...p.tags].slice(0, 3);
    if (rank < 5) {
      p.memo ??= memos[rank * 2]!;
      p.agreement = '締結済';
      if (p.doctors.length === 0) p.doctors = doctors.filter((_, d) => d % 3 === rank % 3);
    }
    if (rank < 10) p.window ??= windows[rank % windows.length]!;
  }
  return plans;
}

export async function streamExists(store: EventStore, stream: string, tenantId: string): Promise<boolean> {
  try {
    return (await store.readStream(stream, { tenantId })).length > 0;
  } catch (error) {
    if (error instanceof StreamNotFoundError) return false;
    throw error;
  }
}

/** What the tenant already has (a start that stopped half-way, or an owner's own tags and labels). */
async function existingData(store: EventStore, tenantId: string) {
  const tags = new Map<string, string>();
  const labels = new Map<string, { id: string; selections: { id: string; label: string }[] }>();
  const doctorKeys = new Set<string>();
  let phaseMasters: { id: string; name: string }[] | null = null;
  let from: Position = { primary: 0n, secondary: 0n };
  const tagNames = new Map<string, string>();
  const labelNames = new Map<string, string>();
  for (;;) {
    const { events, next } = await store.readAll(from, {
      limit: 1000,
      types: seededEvents.types,
    });
    for (const stored of events) {
      if (stored.metadata.tenant_id !== tenantId) continue;
      const e = seededEvents(stored);
      if (e.type === 'TagCreated' || e.type === 'TagUpdated') {
        const d = e.data;
        const old = tagNames.get(d.tag_id);
        if (old) tags.delete(old);
        tagNames.set(d.tag_id, normalizeTagName(d.name));
        tags.set(normalizeTagName(d.name), d.tag_id);
      } else if (e.type === 'TagDeleted') {
        const old = tagNames.get(e.data.tag_id);
        if (old) tags.delete(old);
      } else if (e.type === 'MedicalInstitutionLabelCreated' || e.type === 'MedicalInstitutionLabelUpdated') {
        const d = e.data;
        const old = labelNames.get(d.label_id);
        if (old) labels.delete(old);
        labelNames.set(d.label_id, d.name);
        labels.set(d.name, { id: d.label_id, selections: d.selections });
      } else if (e.type === 'MedicalInstitutionLabelDeleted') {
        const old = labelNames.get(e.data.label_id);
        if (old) labels.delete(old);
      } else if (e.type === 'DoctorAdded') {
        doctorKeys.add(`${e.data.medical_institution_id}\u0000${e.data.name}`);
      } else if (e.type === 'PhaseMastersReplaced') {
        phaseMasters = e.data.phase_masters;
      }
    }
    if (events.length === 0) break;
    from = next;
  }
  return { tags, labels, doctorKeys, phaseMasters };
}

/** The events the seed reads back to know what an earlier start already wrote. */
const seededEvents = eventDecoder({
  ...tagEventSchemas,
  MedicalInstitutionLabelCreated: medicalInstitutionLabelEventSchemas.MedicalInstitutionLabelCreated,
  MedicalInstitutionLabelUpdated: medicalInstitutionLabelEventSchemas.MedicalInstitutionLabelUpdated,
  MedicalInstitutionLabelDeleted: medicalInstitutionLabelEventSchemas.MedicalInstitutionLabelDeleted,
  DoctorAdded: medicalInstitutionCrmEventSchemas.DoctorAdded,
  PhaseMastersReplaced: medicalInstitutionCrmEventSchemas.PhaseMastersReplaced,
});

/** Runs `work` over `items`, `limit` at a time (the command handlers wait on the database, not the CPU). */
async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

export interface DemoCrmSeedDeps {
  db: Database;
  store: EventStore;
  identityConfig: IdentityConfig;
  /** How the command service checks tokens (the embedded system's local key set). */
  commandAuth: AuthOptions;
  tenantSlug: string;
  tenantId: string;
  accounts: { owner: string; member: string };
  logger?: Logger;
}

/**
 * Seeds the demo tenant's CRM data unless it is there already. The last write is the tags of the
 * last planned institution, so its CRM stream existing means a previous start finished; a start that
 * stopped half-way runs again and only adds what is missing (every step checks or replaces).
 */
export async function seedDemoCrm(deps: DemoCrmSeedDeps): Promise<{ requests: number } | undefined> {
  const { db, store, tenantId } = deps;
  if (deps.identityConfig.externalAuthority) {
    // An external provider issues the tokens: the built-in one cannot act as the demo accounts.
    deps.logger?.info('demo CRM data skipped: tokens come from an external provider');
    return undefined;
  }
  const { rows } = await sql<{ id: string; name: string; bed_count: number | null }>`
    SELECT id, name, bed_count FROM ref.medical_institutions WHERE running_status = 'open' ORDER BY code`.execute(
    db.kysely,
  );
  const partners = new Map((await demoReferrersOf(db)).slice(0, demoCrmPartners).map((r, rank) => [r.id, rank]));
  const plans = planDemoCrm(
    rows.map((r) => ({ id: r.id, name: r.name, hospital: (r.bed_count ?? 0) >= 20 })),
    partners,
  );
  const last = plans[plans.length - 1];
  if (!last) return undefined;
  const lastStream = streamId(medicalInstitutionCrmAggregate, medicalInstitutionCrmKey(tenantId, last.institution.id));
  if (await streamExists(store, lastStream, tenantId)) return undefined;

  const app: FastifyInstance = await buildCommandApp({
    db,
    store,
    auth: deps.commandAuth,
    logger: false,
    rateLimit: false,
    underPressure: false,
    // A seed's app takes no tracking hits: it must not store what another install's dead process left.
    emailTrackingJournalDir: null,
  });
  let requests = 0;
  try {
    const token = async (email: string) =>
      issueAccessToken(
        { db, config: deps.identityConfig },
        { tenantSlug: deps.tenantSlug, email, audience: 'command' },
      );
    const tokens = { owner: await token(deps.accounts.owner), member: await token(deps.accounts.member) };
    const call = async (by: 'owner' | 'member', method: 'POST' | 'PUT', url: string, payload: object) => {
      requests++;
      const res = await app.inject({
        method,
        url: `/api${url}`,
        headers: { authorization: `Bearer ${tokens[by]}` },
        payload,
      });
      if (res.statusCode >= 300) throw new Error(`demo seed: ${method} ${url} answered ${res.statusCode}: ${res.body}`);
      return res.json() as any;
    };

    const existing = await existingData(store, tenantId);

    // Phase masters only when the owner has none: an owner's own list is never replaced.
    const phaseMasters =
      existing.phaseMasters ??
      ((await call('owner', 'PUT', '/phase_masters', { phase_masters: demoPhases })) as { id: string; name: string }[]);
    const phaseIds = new Map(phaseMasters.map((p) => [p.name, p.id]));

    const tagIds = new Map<string, string>();
    for (const tag of demoTags) {
      const id =
        existing.tags.get(normalizeTagName(tag.name)) ??
        ((await call('owner', 'POST', '/tags', tag)) as { id: string }).id;
      tagIds.set(tag.name, id);
    }

    const labels = new Map<string, { id: string; selections: { id: string; label: string }[] }>();
    for (const label of [windowLabel, agreementLabel]) {
      labels.set(
        label.name,
        existing.labels.get(label.name) ?? (await call('owner', 'POST', '/medical_institution_labels', label)),
      );
    }
    const windowId = labels.get(windowLabel.name)!.id;
    const agreement = labels.get(agreementLabel.name)!;

    const perInstitution = async (p: InstitutionPlan) => {
      const base = `/medical_institutions/${p.institution.id}`;
      for (const doctor of p.doctors) {
        if (existing.doctorKeys.has(`${p.institution.id}\u0000${doctor.name}`)) continue;
        const { mail, ...fields } = doctor;
        // An address of the clinic's own (example.jp is reserved: nothing is ever delivered there).
        const email = mail ? `${mail}@c${p.institution.id.slice(0, 8)}.example.jp` : null;
        await call(p.by, 'POST', `${base}/doctors`, { ...fields, email, honorific: '先生' });
      }
      if (p.memo) await call(p.by, 'PUT', `${base}/memo`, { content: p.memo });
      if (p.specialNote) await call('owner', 'PUT', `${base}/special_note`, { content: p.specialNote });
      const phaseId = p.phase ? phaseIds.get(p.phase) : undefined;
      if (phaseId) await call(p.by, 'PUT', `${base}/phase`, { phase_master_id: phaseId });
      const values = [
        ...(p.window ? [{ label_id: windowId, text_value: p.window }] : []),
        ...(p.agreement
          ? [{ label_id: agreement.id, selection_id: agreement.selections.find((s) => s.label === p.agreement)?.id }]
          : []),
      ].filter((v) => !('selection_id' in v) || v.selection_id);
      if (values.length > 0) await call(p.by, 'POST', `${base}/label_values`, { label_values: values });
      await call(p.by, 'PUT', `${base}/tags`, { tag_ids: p.tags.map((t) => tagIds.get(t)!) });
    };
    // The last institution's tags are the mark of a finished seed: written strictly after the rest.
    await inParallel(plans.slice(0, -1), 4, perInstitution);
    requests += await seedDemoEmails(app, tokens.owner, deps.accounts.owner);
    await perInstitution(last);
    deps.logger?.info({ institutions: plans.length, requests }, 'demo CRM data seeded');
    return { requests };
  } finally {
    await app.close();
  }
}
