import { sql } from 'kysely';
import type { Logger } from 'pino';
import { buildCommandApp } from '@renkei/command';
import type { Database } from '@renkei/db';
import type { EventStore } from '@renkei/event-store';
import { issueAccessToken, type IdentityConfig } from '@renkei/identity';
import type { AuthOptions } from '@renkei/service-kit';
import { demoPdf, demoPhoto, multipartFile } from './demo-attachments.ts';
import { demoReferrersOf } from './demo-referrers.ts';

/**
 * The demo tenant's year of activity: communications of every type by both demo accounts (more visits
 * to a core of partners, some clinics not visited for months), communication labels with values,
 * tasks (some overdue, some done), comments and likes. Written through the command service's own
 * endpoints under fixed Idempotency-Keys, so a start that stopped half-way repeats nothing: a key
 * already answered is answered again without a new record.
 */

const COUNT = 2400;
const endpointId = 'communications.createForMedicalInstitution';

const stories: Record<string, string[]> = {
  visit: [
    '院長に面会。最近の紹介患者の経過を報告し、返書の遅れをお詫びした。',
    '地域連携室の担当者と面談。整形外科の外来枠について質問を受けた。',
    '定期訪問。糖尿病教育入院のパンフレットを渡した。',
    '事務長と面談。来月の連携の会の日程を案内した。',
    '院長不在のため、看護師長に資料を預けた。',
  ],
  new_visit: ['新規開業の挨拶に伺った。院長の専門は消化器内科。', '初回訪問。当院の診療科と紹介窓口を説明した。'],
  phone: ['紹介予定の患者について電話で相談を受けた。', '検査予約の空き状況を電話で案内した。', '訪問日程の調整。'],
  email: ['連携の会の案内をメールで送付した。', '紹介患者の受診結果をメールで報告した。'],
  postal_item: ['診療案内の冊子を郵送した。'],
  event_attendance: ['地域医療連携の会に参加。近隣の開業医と意見交換した。'],
  referral_acceptance: ['救急からの紹介患者を受け入れた。'],
  refused_referral: ['満床のため紹介をお断りした。翌週の受け入れを提案。'],
  other: ['学会で院長と会い、近況を伺った。'],
};
const typeWeights: [string, number][] = [
  ['visit', 45],
  ['new_visit', 4],
  ['phone', 24],
  ['email', 10],
  ['postal_item', 4],
  ['event_attendance', 4],
  ['referral_acceptance', 5],
  ['refused_referral', 2],
  ['other', 2],
];
const taskTitles = [
  '資料を送付する',
  '院長へ返書の状況を報告する',
  '次回訪問の日程を調整する',
  '外来枠を確認して連絡する',
];
const comments = [
  'お疲れさまです。',
  '次回は私も同行します。',
  '返書の件、医事課に確認しておきます。',
  '良い反応ですね！',
];

const meetLabel = {
  name: '面談相手',
  communication_type: 'visit',
  component_type: 'select',
  description: '訪問で会った方',
  selections: [{ label: '院長' }, { label: '医師' }, { label: '事務長' }, { label: '看護師' }, { label: '地域連携室' }],
  is_required: false,
} as const;
const nextVisitLabel = {
  name: '次回訪問予定',
  communication_type: 'visit',
  component_type: 'date',
  description: '',
  selections: [],
  is_required: false,
} as const;

/** mulberry32: every install gets the same activity. */
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

const isoDay = (d: Date) => d.toISOString().slice(0, 10);

export interface DemoCommunicationsSeedDeps {
  db: Database;
  store: EventStore;
  identityConfig: IdentityConfig;
  commandAuth: AuthOptions;
  tenantSlug: string;
  tenantId: string;
  accounts: { owner: string; member: string };
  logger?: Logger;
}

/** Seeds the demo tenant's communications unless the last one is stored already. */
export async function seedDemoCommunications(
  deps: DemoCommunicationsSeedDeps,
): Promise<{ requests: number } | undefined> {
  const { db, tenantId } = deps;
  if (deps.identityConfig.externalAuthority) return undefined;
  const lastKey = `demo-communication-${COUNT - 1}`;
  const { rows: done } = await sql`
    SELECT 1 FROM cmd.idempotency_keys
     WHERE tenant_id = ${tenantId} AND endpoint = ${endpointId} AND key = ${lastKey} AND response IS NOT NULL`.execute(
    db.kysely,
  );
  if (done.length > 0) return undefined;
  const { rows: institutions } = await sql<{ id: string }>`
    SELECT id FROM ref.medical_institutions WHERE running_status = 'open' ORDER BY code`.execute(db.kysely);
  if (institutions.length === 0) return undefined;
  const { rows: accounts } = await sql<{ id: string; email: string }>`
    SELECT a.id, a.email FROM identity.accounts a JOIN identity.tenants t ON t.id = a.tenant_id
     WHERE t.slug = ${deps.tenantSlug}`.execute(db.kysely);
  const accountId = (email: string) => accounts.find((a) => a.email === email)?.id ?? null;
  const ids = { owner: accountId(deps.accounts.owner), member: accountId(deps.accounts.member) };

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
  let requests = 0;
  try {
    const token = (email: string) =>
      issueAccessToken(
        { db, config: deps.identityConfig },
        { tenantSlug: deps.tenantSlug, email, audience: 'command' },
      );
    const tokens = { owner: await token(deps.accounts.owner), member: await token(deps.accounts.member) };
    const call = async (
      by: 'owner' | 'member',
      method: 'POST' | 'PUT',
      url: string,
      payload?: object,
      key?: string,
    ) => {
      requests++;
      const res = await app.inject({
        method,
        url: `/api${url}`,
        headers: { authorization: `Bearer ${tokens[by]}`, ...(key ? { 'idempotency-key': key } : {}) },
        ...(payload ? { payload } : {}),
      });
      if (res.statusCode >= 300) throw new Error(`demo seed: ${method} ${url} answered ${res.statusCode}: ${res.body}`);
      return res.json() as any;
    };

    const meet = await call('owner', 'POST', '/communication_labels', meetLabel, 'demo-communication-label-meet');
    const nextVisit = await call(
      'owner',
      'POST',
      '/communication_labels',
      nextVisitLabel,
      'demo-communication-label-next',
    );

    const rand = random(20260402);
    const pick = <T>(items: readonly T[]) => items[Math.floor(rand() * items.length)]!;
    const weighted = () => {
      let r = rand() * typeWeights.reduce((s, [, w]) => s + w, 0);
      for (const [type, w] of typeWeights) if ((r -= w) < 0) return type;
      return 'visit';
    };
    // A core of partners gets most of the activity: the institutions that refer most in the demo's referral
    // files, visited in proportion to the square root of their share (a large partner is not visited every
    // day); one that stops referring was last visited months before it stopped. The rest now and then.
    const core = (await demoReferrersOf(db)).slice(0, 120).map((r) => ({
      id: r.id,
      weight: Math.sqrt(r.base),
      lastVisit: r.stoppedFrom ? Date.parse(r.stoppedFrom) - 100 * 86_400_000 : Infinity,
    }));
    const coreTotal = core.reduce((sum, c) => sum + c.weight, 0);
    const pickPartner = (acted: Date) => {
      let r = rand() * coreTotal;
      const partner = core.find((c) => (r -= c.weight) < 0) ?? core[core.length - 1];
      return partner && acted.getTime() < partner.lastVisit ? partner : pick(institutions);
    };
    const today = new Date();
    const plans = Array.from({ length: COUNT }, (_, i) => {
      const type = weighted();
      const daysAgo = Math.floor(rand() ** 1.5 * 365);
      const acted = new Date(today.getTime() - daysAgo * 86_400_000);
      const by: 'owner' | 'member' = rand() < 0.55 ? 'member' : 'owner';
      const institution = rand() < 0.8 ? pickPartner(acted) : pick(institutions);
      const withTask = rand() < 0.18;
      const deadline = new Date(acted.getTime() + (3 + Math.floor(rand() * 20)) * 86_400_000);
      const isVisit = type === 'visit' || type === 'new_visit';
      return {
        key: `demo-communication-${i}`,
        by,
        institutionId: institution.id,
        body: {
          communication_type: type,
          acted_date: isoDay(acted),
          story: pick(stories[type]!),
          is_doctor_attended: isVisit && rand() < 0.4,
          label_values:
            type === 'visit'
              ? [
                  { label_id: meet.id, selection_id: pick(meet.selections as { id: string }[]).id },
                  ...(rand() < 0.3
                    ? [{ label_id: nextVisit.id, date_value: isoDay(new Date(acted.getTime() + 30 * 86_400_000)) }]
                    : []),
                ]
              : [],
          tasks: withTask ? [{ title: pick(taskTitles), staff_id: ids[by], deadline: isoDay(deadline) }] : [],
        },
        // Tasks due more than a month ago were mostly done and those of months ago all were: the open ones
        // are this month's, a few overdue by weeks, none by a year (the draw is the same as before, so the
        // rest of the seed stays what it was).
        finishTask: withTask && daysAgo > 40 && (rand() < 0.7 || daysAgo > 120),
        comment: rand() < 0.1 ? pick(comments) : null,
        like: rand() < 0.2,
        // Drawn apart from `rand`, so the rest of the seed stays what it was.
        attach: (type === 'visit' || type === 'new_visit') && i % 41 === 5,
      };
    });

    /**
     * A few records get a photo of the visit (and now and then a leaflet PDF), added by an edit after
     * the create: the create's Idempotency-Key must keep naming the same body when a seed resumes.
     */
    const attach = async (p: (typeof plans)[number], communicationId: string) => {
      const upload = async (filename: string, content: Buffer) => {
        requests++;
        const body = multipartFile(filename, content);
        const res = await app.inject({
          method: 'POST',
          url: '/api/uploaded_files',
          headers: { authorization: `Bearer ${tokens[p.by]}`, 'content-type': body.contentType },
          payload: body.payload,
        });
        if (res.statusCode !== 201) throw new Error(`demo seed: upload answered ${res.statusCode}: ${res.body}`);
        return (res.json() as { id: string }).id;
      };
      const n = Number(p.key.slice('demo-communication-'.length));
      const files = [await upload(`訪問写真_${p.body.acted_date}.png`, demoPhoto(n))];
      if (n % 3 === 0) files.push(await upload('診療案内.pdf', demoPdf('Clinic guide (demo)')));
      const { tasks: _tasks, ...fields } = p.body;
      await call(p.by, 'PUT', `/communications/${communicationId}`, { ...fields, attachment_ids: files });
    };

    let next = 0;
    const worker = async () => {
      while (next < plans.length - 1) {
        const p = plans[next++]!;
        const saved = await call(
          p.by,
          'POST',
          `/medical_institutions/${p.institutionId}/communications`,
          p.body,
          p.key,
        );
        const other = p.by === 'owner' ? 'member' : 'owner';
        if (p.comment) await call(other, 'POST', `/communications/${saved.id}/comments`, { comment: p.comment });
        if (p.like) await call(other, 'PUT', `/communications/${saved.id}/likes`);
        if (p.attach && saved.attachments.length === 0) await attach(p, saved.id);
        const task = saved.tasks[0];
        if (p.finishTask && task && task.status === 'incomplete') {
          await call(p.by, 'PUT', `/tasks/${task.id}`, {
            title: task.title,
            staff_id: task.staff?.id ?? null,
            deadline: task.deadline,
            medical_institution_id: p.institutionId,
            status: 'finished',
          });
        }
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    // The last key is the mark of a finished seed: written strictly after the rest.
    const last = plans[plans.length - 1]!;
    await call(last.by, 'POST', `/medical_institutions/${last.institutionId}/communications`, last.body, last.key);
    deps.logger?.info({ communications: COUNT, requests }, 'demo communications seeded');
    return { requests };
  } finally {
    await app.close();
  }
}
