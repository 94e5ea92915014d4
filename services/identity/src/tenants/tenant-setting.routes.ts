import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import {
  HttpError,
  identityEndpoints,
  ipSelfExclusionSubCode,
  notFound,
  unprocessable,
  type FeatureKey,
  type TenantSetting,
} from '@renkei/contracts';
import { registerEndpoint } from '@renkei/service-kit';
import type { IdentityDeps } from '../deps.ts';
import { isIpAllowed, isValidCidr } from '@renkei/contracts/ip-allow-list';
import { institutionNames, updateTenant } from './tenant.commands.ts';
import { logoPath, readLogo } from './tenant-logo.ts';
import { findTenantById, tenantFeatures, type TenantRow } from './tenant.queries.ts';
import { identityDb } from '../db/identity.tables.ts';

/**
 * `/tenant_setting`: the vendor's support account sets up a tenant (the registry lets no one else in).
 * Every change is the TenantSettingsChanged event plus a row of the change history.
 */
export function registerTenantSettingRoutes(app: FastifyInstance, deps: IdentityDeps): void {
  const db = identityDb(deps.db);

  const load = async (tenantId: string): Promise<TenantRow> => {
    const tenant = await findTenantById(db, tenantId);
    if (!tenant) throw notFound();
    return tenant;
  };

  const settingOf = async (tenant: TenantRow, clientIp: string): Promise<TenantSetting> => {
    // An id set before the master held it still shows, unnamed.
    const ownId = tenant.medical_institution_id?.toLowerCase();
    const own = ownId ? [{ id: ownId, name: (await institutionNames(db, [ownId])).get(ownId) ?? '' }] : [];
    return {
      name: tenant.name,
      plan: tenant.plan,
      features: tenantFeatures(tenant),
      features_off: (Object.entries(tenant.feature_overrides) as [FeatureKey, boolean | undefined][])
        .filter(([, on]) => on === false)
        .map(([key]) => key),
      medical_institution: own[0] ?? null,
      group_medical_institutions: tenant.group_medical_institutions,
      is_group: tenant.is_group,
      enabled_phase: tenant.enabled_phase,
      max_account_count: tenant.max_account_count,
      max_tag_count: tenant.max_tag_count,
      email_sender_allowed_addresses: tenant.email_sender_allowed_addresses,
      ip_allow_list: tenant.ip_allow_list,
      client_ip: clientIp,
      prefecture: tenant.prefecture,
      latitude: tenant.latitude,
      longitude: tenant.longitude,
      logo: logoPath(tenant.logo),
    };
  };

  registerEndpoint(app, identityEndpoints.getTenantSetting, async ({ auth, request }) =>
    settingOf(await load(auth.tenantId), request.ip),
  );

  registerEndpoint(app, identityEndpoints.updateTenantSetting, async ({ auth, body, request }) => {
    const tenant = await load(auth.tenantId);
    const malformed = body.ip_allow_list.flatMap((cidr, i) =>
      isValidCidr(cidr)
        ? []
        : [{ field: `ip_allow_list.${i}`, message: `IPアドレスの形式が正しくありません: ${cidr}` }],
    );
    if (malformed.length) throw unprocessable(malformed);
    // Nobody locks everyone out by mistake: a list without the caller's own address is saved only
    // once the caller confirmed it, having been told which address that is.
    if (!body.confirm_ip_exclusion && !isIpAllowed(request.ip, body.ip_allow_list)) {
      throw new HttpError(422, undefined, {
        sub_code: ipSelfExclusionSubCode,
        errors: [
          {
            field: 'ip_allow_list',
            message: `現在の接続元IPアドレス（${request.ip}）が含まれていません。このまま保存すると、このアドレスからはアクセスできなくなります。`,
          },
        ],
      });
    }
    const updated = await updateTenant(
      deps,
      tenant.slug,
      {
        name: body.name,
        plan: body.plan,
        featuresOff: body.features_off,
        medicalInstitutionId: body.medical_institution_id,
        groupMedicalInstitutionIds: body.group_medical_institution_ids,
        isGroup: body.is_group,
        enabledPhase: body.enabled_phase,
        maxAccountCount: body.max_account_count,
        maxTagCount: body.max_tag_count,
        emailSenderAllowedAddresses: body.email_sender_allowed_addresses,
        ipAllowList: body.ip_allow_list,
        ...(body.prefecture !== undefined ? { prefecture: body.prefecture } : {}),
        ...(body.latitude !== undefined ? { latitude: body.latitude } : {}),
        ...(body.longitude !== undefined ? { longitude: body.longitude } : {}),
      },
      { by: auth.accountId },
    );
    return settingOf(updated, request.ip);
  });

  registerEndpoint(app, identityEndpoints.updateTenantLogo, async ({ auth, body, request }) => {
    const tenant = await load(auth.tenantId);
    const updated = await updateTenant(deps, tenant.slug, { logo: readLogo(body.data) }, { by: auth.accountId });
    return settingOf(updated, request.ip);
  });

  registerEndpoint(app, identityEndpoints.deleteTenantLogo, async ({ auth }) => {
    const tenant = await load(auth.tenantId);
    if (tenant.logo !== null) await updateTenant(deps, tenant.slug, { logo: null }, { by: auth.accountId });
    return null;
  });

  // Served to the signed-in users of the logo's own tenant only: the tenant comes from the token.
  registerEndpoint(app, identityEndpoints.getTenantLogo, async ({ auth, reply }) => {
    const logo = await db
      .selectFrom('identity.tenant_logos')
      .select(['content_type', 'data'])
      .where('tenant_id', '=', auth.tenantId)
      .executeTakeFirst();
    if (!logo) throw notFound();
    // The stored type was read from the bytes at upload; the browser must not guess another one, and
    // the image is never a document that could run anything.
    void reply
      .header('content-type', logo.content_type)
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; sandbox")
      .header('content-disposition', 'inline')
      .header('cache-control', 'private, max-age=86400');
    // A download answers its bytes as they are (no serialiser runs for it).
    return Buffer.from(logo.data) as unknown as string;
  });

  registerEndpoint(app, identityEndpoints.listTenantSettingHistories, async ({ auth, query }) => {
    const base = db.selectFrom('identity.tenant_setting_changes as c').where('c.tenant_id', '=', auth.tenantId);
    const { n } = await base.select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow();
    const rows = await base
      .leftJoin('identity.accounts as a', 'a.id', 'c.account_id')
      .select(['c.changed_at', 'c.changes', 'a.username'])
      .orderBy('c.seq', 'desc')
      .limit(query.per_page)
      .offset((query.page - 1) * query.per_page)
      .execute();
    const total = Number(n);
    const changesOf = (r: (typeof rows)[number]) => r.changes as { field: string; before: string; after: string }[];
    // The own institution is stored by id (the master may rename it); the history reads its name.
    const ownIds = rows.flatMap((r) =>
      changesOf(r)
        .filter((c) => c.field === 'medical_institution_id')
        .flatMap((c) => [c.before, c.after].filter(Boolean).map((id) => id.toLowerCase())),
    );
    const names = await institutionNames(db, [...new Set(ownIds)]);
    const named = (id: string) => (id ? (names.get(id.toLowerCase()) ?? id) : id);
    return {
      data: rows.map((r) => ({
        changed_at: new Date(r.changed_at).toISOString(),
        changed_by: (r.username as string | null) ?? null,
        changes: changesOf(r).map((c) =>
          c.field === 'medical_institution_id' ? { ...c, before: named(c.before), after: named(c.after) } : c,
        ),
      })),
      meta: {
        total_count: total,
        page: query.page,
        per_page: query.per_page,
        total_pages: Math.ceil(total / query.per_page),
      },
    };
  });
}
