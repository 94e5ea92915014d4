import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { conflict, identityEndpoints, notFound, unprocessable, type Account } from '@renkei/contracts';
import { registerEndpoint } from '@renkei/service-kit';
import type { IdentityDeps } from '../deps.ts';
import { publishQueued } from '../identity.events.ts';
import { clearSignInFailures } from '../oidc/sign-in-lockout.ts';
import { addAccount, enqueueAccountUpdated, hashPassword } from './account.commands.ts';
import type { AccountRow } from './account.queries.ts';

const UNIQUE_VIOLATION = '23505';

export function accountOf(row: AccountRow): Account {
  return {
    id: row.id,
    username: row.username,
    email: row.email,
    login_name: row.login_name,
    role: row.role,
    last_login_date: row.last_login_date ? new Date(row.last_login_date).toISOString() : null,
    is_confirmed: row.is_confirmed,
    enabled_crm: row.enabled_crm,
    enabled_mc_map: row.enabled_mc_map,
    cs_account: row.cs_account,
  };
}

function duplicateMessage(error: unknown): string | null {
  const e = error as { code?: string; constraint?: string };
  if (e.code !== UNIQUE_VIOLATION) return null;
  return e.constraint === 'accounts_login_name_key'
    ? 'このログインIDは既に使用されています。'
    : 'このメールアドレスは既に使用されています。';
}

/**
 * The tenant's accounts. CS (vendor support) accounts are not the tenant's to list or edit; deleting
 * deactivates, so names in history stay resolvable, and ends the account's sessions and tokens.
 */
export function registerAccountRoutes(app: FastifyInstance, deps: IdentityDeps): void {
  const db = deps.db.kysely;

  const loadEditable = async (tenantId: string, id: string): Promise<AccountRow> => {
    const row = (await db
      .selectFrom('identity.accounts')
      .selectAll()
      .where('id', '=', id)
      .where('tenant_id', '=', tenantId)
      .where('active', '=', true)
      .where('cs_account', '=', false)
      .executeTakeFirst()) as AccountRow | undefined;
    if (!row) throw notFound();
    return row;
  };

  const otherOwners = async (tenantId: string, id: string) => {
    const row = await db
      .selectFrom('identity.accounts')
      .select(sql<string>`count(*)`.as('n'))
      .where('tenant_id', '=', tenantId)
      .where('role', '=', 'owner')
      .where('active', '=', true)
      .where('id', '!=', id)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };

  registerEndpoint(app, identityEndpoints.listAccounts, async ({ auth, query }) => {
    const base = db
      .selectFrom('identity.accounts')
      .where('tenant_id', '=', auth.tenantId)
      .where('active', '=', true)
      .where('cs_account', '=', false);
    const { n } = await base.select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow();
    const rows = (await base
      .selectAll()
      .orderBy('username')
      .orderBy('id')
      .limit(query.per_page)
      .offset((query.page - 1) * query.per_page)
      .execute()) as AccountRow[];
    const total = Number(n);
    return {
      data: rows.map(accountOf),
      meta: {
        total_count: total,
        page: query.page,
        per_page: query.per_page,
        total_pages: Math.ceil(total / query.per_page),
      },
    };
  });

  registerEndpoint(app, identityEndpoints.createAccount, async ({ auth, body, reply }) => {
    const { accountId, position } = await addAccount(deps, {
      tenantId: auth.tenantId,
      username: body.username,
      email: body.email ?? null,
      loginName: body.login_name ?? null,
      password: body.password,
      role: body.role,
      enabledMcMap: body.enabled_mc_map,
      enabledCrm: body.enabled_crm,
      isConfirmed: false,
    });
    if (position) reply.position(position);
    return accountOf(await loadEditable(auth.tenantId, accountId));
  });

  registerEndpoint(app, identityEndpoints.updateAccount, async ({ auth, params, body, reply }) => {
    const before = await loadEditable(auth.tenantId, params.id);
    if (!body.email && !body.login_name) {
      throw unprocessable([{ field: 'email', message: 'メールアドレスまたはログインIDを入力してください' }]);
    }
    if (before.role === 'owner' && body.role !== 'owner' && (await otherOwners(auth.tenantId, before.id)) === 0) {
      throw unprocessable([{ field: 'role', message: 'オーナーが1人もいなくなるため、権限を変更できません' }]);
    }
    const passwordHash = body.password ? await hashPassword(body.password) : undefined;
    let updated: AccountRow;
    let eventId: string;
    try {
      ({ updated, eventId } = await db.transaction().execute(async (trx) => {
        const updated = (await trx
          .updateTable('identity.accounts')
          .set({
            username: body.username,
            email: body.email?.toLowerCase() ?? null,
            login_name: body.login_name ?? null,
            role: body.role,
            enabled_crm: body.enabled_crm,
            enabled_mc_map: body.enabled_mc_map,
            ...(passwordHash ? { password_hash: passwordHash } : {}),
            updated_at: sql`now()`,
          })
          .where('id', '=', before.id)
          .where('tenant_id', '=', auth.tenantId)
          .returningAll()
          .executeTakeFirstOrThrow()) as AccountRow;
        // An owner who sets a new password ends that account's sign-in lockout.
        if (passwordHash) await clearSignInFailures(trx, updated.id);
        return { updated, eventId: await enqueueAccountUpdated(trx, updated, auth.accountId) };
      }));
    } catch (error) {
      const message = duplicateMessage(error);
      if (message) throw conflict(message);
      throw error;
    }
    const position = await publishQueued(deps, [eventId]);
    if (position) reply.position(position);
    return accountOf(updated);
  });

  registerEndpoint(app, identityEndpoints.deleteAccount, async ({ auth, params, reply }) => {
    const before = await loadEditable(auth.tenantId, params.id);
    if (before.id === auth.accountId) {
      throw unprocessable([{ field: 'id', message: '自分自身のアカウントは削除できません' }]);
    }
    const eventId = await db.transaction().execute(async (trx) => {
      const updated = (await trx
        .updateTable('identity.accounts')
        .set({ active: false, updated_at: sql`now()` })
        .where('id', '=', before.id)
        .returningAll()
        .executeTakeFirstOrThrow()) as AccountRow;
      // Sessions, grants and refresh tokens of a removed account stop working at once.
      await trx
        .deleteFrom('identity.oidc_payloads')
        .where(sql`payload->>'accountId'`, '=', before.id)
        .execute();
      return enqueueAccountUpdated(trx, updated, auth.accountId);
    });
    const position = await publishQueued(deps, [eventId]);
    if (position) reply.position(position);
    return null;
  });
}
