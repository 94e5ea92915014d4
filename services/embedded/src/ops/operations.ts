import path from 'node:path';
import { z } from 'zod';
import { Plan, unprocessable, type Audience } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import type { EventStore } from '@renkei/event-store';
import {
  catchUpProjections,
  projectionStatus,
  reactorStatus,
  requestRebuild,
  type Projection,
} from '@renkei/projections';
import {
  addTenant,
  identityDb,
  issueAccessToken,
  migrateIdentity,
  rotateSigningKey,
  updateTenant,
  type IdentityConfig,
} from '@renkei/identity';
import { importInstitutionMaster } from '@renkei/institution-master';
import { formatProjectionStatus, formatReactorStatus } from './format.ts';

/** What an operation needs: the database and store of the process that runs it. */
export interface OpsContext {
  db: Database;
  store: EventStore;
  identityConfig: IdentityConfig;
  projections: readonly Projection<any>[];
  /** True inside the running server (its worker does the work), false in a CLI that opened the database. */
  insideServer: boolean;
  /** Inside the server: the identity service applies a key change now instead of at its next poll. */
  signingKeysChanged?: () => Promise<void>;
}

const parse = <T extends z.ZodType>(schema: T, args: unknown): z.infer<T> => {
  const r = schema.safeParse(args);
  if (!r.success) throw unprocessable(r.error.issues.map((i) => ({ field: i.path.join('.'), message: i.message })));
  return r.data;
};

const TenantAddArgs = z.object({
  slug: z.string(),
  name: z.string(),
  owner: z.string(),
  password: z.string(),
  plan: Plan.optional(),
  ownerName: z.string().optional(),
});
const TenantUpdateArgs = z
  .object({
    slug: z.string(),
    plan: Plan.optional(),
    enabledPhase: z.boolean().optional(),
    maxTagCount: z.number().int().min(0, '0以上の整数を指定してください').nullable().optional(),
    groupInstitutions: z.array(z.string()).optional(),
    featuresOff: z.array(z.string()).optional(),
  })
  .refine((a) => Object.keys(a).some((k) => k !== 'slug'), '変更する設定を指定してください');
const TokenArgs = z.object({ tenant: z.string(), email: z.string(), audience: z.enum(['main', 'query', 'command']) });
const RebuildArgs = z.object({ name: z.string() });
const ImportArgs = z.object({ file: z.string() });

/**
 * The ops commands that touch the database. The CLI runs them itself on a database nobody owns, or
 * asks the running embedded process to run them (admin endpoint), so both paths share this code.
 */
export const databaseOperations = {
  async 'tenant.add'(ctx: OpsContext, args: unknown): Promise<string> {
    const a = parse(TenantAddArgs, args);
    await migrateIdentity({ db: ctx.db });
    const added = await addTenant(
      { db: ctx.db, store: ctx.store },
      { slug: a.slug, name: a.name, ownerEmail: a.owner, password: a.password, plan: a.plan, ownerName: a.ownerName },
    );
    return `テナント「${a.slug}」を作成しました (tenant ${added.tenantId}, owner ${added.ownerId})`;
  },

  async 'tenant.update'(ctx: OpsContext, args: unknown): Promise<string> {
    const a = parse(TenantUpdateArgs, args);
    await migrateIdentity({ db: ctx.db });
    const tenant = await updateTenant({ db: ctx.db, store: ctx.store }, a.slug, {
      ...(a.plan !== undefined ? { plan: a.plan } : {}),
      ...(a.enabledPhase !== undefined ? { enabledPhase: a.enabledPhase } : {}),
      ...(a.maxTagCount !== undefined ? { maxTagCount: a.maxTagCount } : {}),
      ...(a.groupInstitutions !== undefined ? { groupMedicalInstitutionIds: a.groupInstitutions } : {}),
      ...(a.featuresOff !== undefined ? { featuresOff: a.featuresOff } : {}),
    });
    const off = Object.entries(tenant.feature_overrides)
      .filter(([, on]) => on === false)
      .map(([key]) => key);
    const groups = tenant.group_medical_institutions.map((g) => `${g.name} (${g.id})`);
    return [
      `テナント「${tenant.slug}」の設定を変更しました。`,
      `  プラン: ${tenant.plan}`,
      `  フェーズ: ${tenant.enabled_phase ? '有効' : '無効'}`,
      `  タグ数上限: ${tenant.max_tag_count ?? 'なし'}`,
      `  無効にした機能: ${off.length ? off.join(', ') : 'なし'}`,
      `  グループ医療機関: ${groups.length ? groups.join('、') : 'なし'}`,
    ].join('\n');
  },

  async token(ctx: OpsContext, args: unknown): Promise<string> {
    const a = parse(TokenArgs, args);
    await migrateIdentity({ db: ctx.db });
    return issueAccessToken(
      { db: ctx.db, config: ctx.identityConfig },
      { tenantSlug: a.tenant, email: a.email, audience: a.audience as Audience },
    );
  },

  async 'keys.rotate'(ctx: OpsContext): Promise<string> {
    await migrateIdentity({ db: ctx.db });
    const rotated = await rotateSigningKey(identityDb(ctx.db), ctx.identityConfig);
    await ctx.signingKeysChanged?.();
    const at = rotated.signsFrom.toLocaleString('ja-JP', { timeZone: 'Asia/Tokyo' });
    return [
      `新しい署名鍵 ${rotated.kid} を JWKS に公開しました。${at} から署名に使われます。`,
      ctx.insideServer ? '' : '(稼働中の identity サービスは 30 秒以内にこの鍵を読み込みます。)',
      ...(rotated.dropped.length ? [`未使用の予定鍵 ${rotated.dropped.join(', ')} は破棄しました。`] : []),
      '古い鍵は、それで署名されたトークンがすべて期限切れになるまで JWKS に残ります。',
    ]
      .filter(Boolean)
      .join('\n');
  },

  async 'projections.status'(ctx: OpsContext): Promise<string> {
    return [
      formatProjectionStatus(await projectionStatus(ctx.db, ctx.store)),
      formatReactorStatus(await reactorStatus(ctx.db, ctx.store)),
    ].join('\n\n');
  },

  async 'projections.rebuild'(ctx: OpsContext, args: unknown): Promise<string> {
    const { name } = parse(RebuildArgs, args);
    await requestRebuild(ctx.db, name);
    if (ctx.insideServer) {
      return `${name} の再構築を依頼しました。稼働中のワーカーが新しいテーブルに構築し、追いついたら切り替えます (pnpm ops projections status で進捗を確認)。`;
    }
    // Nobody else runs the projections: do the rebuild here, to completion.
    await catchUpProjections({ db: ctx.db, store: ctx.store, projections: ctx.projections });
    return `${name} を再構築しました。\n${formatProjectionStatus((await projectionStatus(ctx.db, ctx.store)).filter((s) => s.name === name))}`;
  },

  async 'institutions.import'(ctx: OpsContext, args: unknown): Promise<string> {
    const { file } = parse(ImportArgs, args);
    const result = await importInstitutionMaster(ctx.db, path.resolve(file));
    return JSON.stringify(result, null, 2);
  },
} satisfies Record<string, (ctx: OpsContext, args: unknown) => Promise<string>>;

export type DatabaseOperation = keyof typeof databaseOperations;
