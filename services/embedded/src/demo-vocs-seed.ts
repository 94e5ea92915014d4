import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '@renkei/db';
import { parseVocGroupEvent, vocGroupsAggregate } from '@renkei/domain';
import { readStreamOrEmpty, streamId, type EventStore } from '@renkei/event-store';
import type { IdentityConfig } from '@renkei/identity';
import type { AuthOptions } from '@renkei/service-kit';
import { openDemoCommandClient } from './demo-command-client.ts';

/**
 * The demo tenant's partner feedback (VOC): a few groups and VOCs heard on the seeded communications,
 * each linked to the communication it came from. Written through the command service under fixed
 * Idempotency-Keys after the communications, so a start that stopped half-way repeats nothing.
 */

const COUNT = 40;
const endpointId = 'vocs.create';
const groupNames = ['紹介・返書', '予約・検査', '接遇・窓口', '設備・環境'];

const voices: { group: number; title: string; detail: string; action: string }[] = [
  {
    group: 0,
    title: '返書が届くのが遅い',
    detail: '紹介した患者の返書が1か月以上届かないことがあると院長から指摘。',
    action: '医事課と返書の発送状況を確認し、2週間以内の発送を徹底する。',
  },
  {
    group: 0,
    title: '紹介状の書式を簡単にしてほしい',
    detail: '紹介状の記入欄が多く、外来の合間に書くのが負担とのこと。',
    action: '簡易版の紹介状テンプレートを検討中。',
  },
  {
    group: 0,
    title: '逆紹介の患者情報をもっと詳しく',
    detail: '逆紹介時の診療情報提供書に、今後の投薬方針を書いてほしいとの要望。',
    action: '',
  },
  {
    group: 1,
    title: 'MRIの予約が取りにくい',
    detail: '急ぎの検査依頼でも2週間先になることがあるとの声。',
    action: '放射線科と地域連携枠の確保について協議。',
  },
  {
    group: 1,
    title: '検査結果の報告を早くしてほしい',
    detail: '検査のみの依頼で、結果の返送に時間がかかっている。',
    action: '結果の即日FAX返送を試行。',
  },
  {
    group: 1,
    title: '外来予約の電話がつながりにくい',
    detail: '午前中は地域連携室の電話がほとんどつながらない。',
    action: '',
  },
  {
    group: 2,
    title: '受付の対応が丁寧だったと患者から',
    detail: '紹介した患者から、受付と看護師の対応が丁寧だったと聞いたとのこと。',
    action: '担当部署へ共有済み。',
  },
  {
    group: 2,
    title: '担当医の連絡先を知りたい',
    detail: '紹介後の相談先として、担当医と連絡が取れる窓口を知りたい。',
    action: '診療科別の連絡窓口一覧を送付する。',
  },
  {
    group: 3,
    title: '駐車場が狭いと患者から苦情',
    detail: '高齢の患者から、駐車場が混んでいて停めにくいとの声があった。',
    action: '',
  },
  {
    group: 3,
    title: '院内の案内表示がわかりにくい',
    detail: '初診の患者が受付の場所で迷ったとのこと。',
    action: '総務課へ案内表示の改善を依頼。',
  },
];
const statuses = ['NOT_STARTED', 'IN_PROGRESS', 'COMPLETED', 'NO_ACTION_REQUIRED'] as const;
const priorities = ['LOW', 'MIDDLE', 'HIGH'] as const;

export interface DemoVocsSeedDeps {
  db: Database;
  store: EventStore;
  identityConfig: IdentityConfig;
  commandAuth: AuthOptions;
  tenantSlug: string;
  tenantId: string;
  accounts: { owner: string; member: string };
  logger?: Logger;
}

/** Seeds the demo tenant's VOCs unless the last one is stored already (after the communications). */
export async function seedDemoVocs(deps: DemoVocsSeedDeps): Promise<{ requests: number } | undefined> {
  const { db, tenantId } = deps;
  if (deps.identityConfig.externalAuthority) return undefined;
  const lastKey = `demo-voc-${COUNT - 1}`;
  const { rows: done } = await sql`
    SELECT 1 FROM cmd.idempotency_keys
     WHERE tenant_id = ${tenantId} AND endpoint = ${endpointId} AND key = ${lastKey} AND response IS NOT NULL`.execute(
    db.kysely,
  );
  if (done.length > 0) return undefined;
  // The visits the communications seed stored (its answers, kept under its Idempotency-Keys).
  const { rows: visits } = await sql<{ id: string; institution_id: string; acted_date: string }>`
    SELECT response->>'id' AS id, response->'medical_institution'->>'id' AS institution_id,
           response->>'acted_date' AS acted_date
      FROM cmd.idempotency_keys
     WHERE tenant_id = ${tenantId} AND endpoint = 'communications.createForMedicalInstitution'
       AND key LIKE 'demo-communication-%' AND response IS NOT NULL
       AND response->>'communication_type' IN ('visit', 'new_visit', 'phone')
     ORDER BY key`.execute(db.kysely);
  if (visits.length === 0) return undefined;

  const client = await openDemoCommandClient(deps);
  try {
    const call = client.call;

    // Groups already saved by a start that stopped half-way are kept (VOCs may use them).
    const stored = await readStreamOrEmpty(deps.store, streamId(vocGroupsAggregate, tenantId), tenantId);
    const current = stored.map(parseVocGroupEvent).at(-1)?.data.voc_groups ?? [];
    const groups: { id: string; name: string }[] =
      current.length > 0
        ? current
        : await call('owner', 'PUT', '/voc_groups', { voc_groups: groupNames.map((name) => ({ name })) });
    const groupId = (i: number) => groups.find((g) => g.name === groupNames[i])?.id ?? null;

    for (let i = 0; i < COUNT; i++) {
      // Spread over the year's visits; the older ones mostly dealt with, the recent ones open.
      const visit = visits[Math.floor(((i * 7919) % COUNT) * (visits.length / COUNT))]!;
      const voice = voices[i % voices.length]!;
      const age = (Date.now() - Date.parse(visit.acted_date)) / 86_400_000;
      const status = age > 120 ? statuses[i % 3 === 0 ? 3 : 2] : age > 45 ? statuses[1 + (i % 2)] : statuses[i % 2];
      await call(
        i % 3 === 0 ? 'owner' : 'member',
        'POST',
        '/vocs',
        {
          medical_institution_id: visit.institution_id,
          title: voice.title,
          reported_date: visit.acted_date,
          status,
          priority: priorities[(i * 5) % 3],
          detail_text: voice.detail,
          action_text: status === 'NOT_STARTED' ? '' : voice.action,
          voc_group_id: i % 8 === 7 ? null : groupId(voice.group),
          communication_ids: [visit.id],
        },
        `demo-voc-${i}`,
      );
    }
    deps.logger?.info({ vocs: COUNT, requests: client.requests }, 'demo VOCs seeded');
    return { requests: client.requests };
  } finally {
    await client.close();
  }
}
