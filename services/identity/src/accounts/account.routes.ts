import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { identityEndpoints, notFound, unprocessable, type Account } from '@renkei/contracts';
import { registerEndpoint } from '@renkei/service-kit';
import type { IdentityDeps } from '../deps.ts';
import { publishQueued } from '../identity.events.ts';
import { clearSignInFailures } from '../oidc/sign-in-lockout.ts';
import type { Mailer } from '../mail/mailer.ts';
import { sendInvitation } from './account-invitation.ts';
import { addAccount, enqueueAccountUpdated, hashPassword, identifierTaken } from './account.commands.ts';
import type { AccountRow } from './account.queries.ts';
import { identityDb, type IdentityDb } from '../db/identity.tables.ts';

const UNIQUE_VIOLATION = '23505';

function accountOf(row: AccountRow): Account {
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

function duplicateField(error: unknown): 'email' | 'login_name' | null {
  const e = error as { code?: string; constraint?: string };
  if (e.code !== UNIQUE_VIOLATION) return null;
  return e.constraint === 'accounts_login_name_key' ? 'login_name' : 'email';
}

/**
 * The tenant's accounts. CS (vendor support) accounts are not the tenant's to list or edit; deleting
 * deactivates, so names in history stay resolvable, and ends the account's sessions and tokens.
 */
export function registerAccountRoutes(app: FastifyInstance, deps: IdentityDeps & { mailer: Mailer }): void {
  const db = identityDb(deps.db);

  const invite = async (row: AccountRow, request: FastifyRequest) => {
    const tenant = await db
      .selectFrom('identity.tenants')
      .select('name')
      .where('id', '=', row.tenant_id)
      .executeTakeFirstOrThrow();
    try {
      await sendInvitation(deps, deps.mailer, row, tenant.name as string);
    } catch (error) {
      // The account exists either way; the owner sees it unconfirmed and can resend.
      request.log.warn({ err: error, accountId: row.id }, 'invitation mail not sent');
    }
  };

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

  const otherOwners = async (trx: IdentityDb, tenantId: string, id: string) => {
    // The tenant row is the lock two owners demoting each other at once queue on.
    await trx.selectFrom('identity.tenants').select('id').where('id', '=', tenantId).forUpdate().execute();
    const row = await trx
      .selectFrom('identity.accounts')
      .select(sql<string>`count(*)`.as('n'))
      .where('tenant_id', '=', tenantId)
      .where('role', '=', 'owner')
      .where('active', '=', true)
      // The vendor's support account does not keep a tenant administrable.
      .where('cs_account', '=', false)
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

  registerEndpoint(app, identityEndpoints.createAccount, async ({ auth, body, reply, request }) => {
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
    const row = await loadEditable(auth.tenantId, accountId);
    if (body.password === undefined) await invite(row, request);
    return accountOf(row);
  });

  registerEndpoint(app, identityEndpoints.resendInvitation, async ({ auth, params, request }) => {
    const row = await loadEditable(auth.tenantId, params.id);
    if (row.is_confirmed) {
      throw unprocessable([{ field: 'id', message: 'このアカウントは登録が完了しているため、招待メールは送れません' }]);
    }
    if (!row.email) {
      throw unprocessable([{ field: 'email', message: 'メールアドレスのないアカウントには招待メールを送れません' }]);
    }
    await invite(row, request);
    return accountOf(row);
  });

  registerEndpoint(app, identityEndpoints.updateAccount, async ({ auth, params, body, reply }) => {
    const before = await loadEditable(auth.tenantId, params.id);
    if (!body.email && !body.login_name) {
      throw unprocessable([{ field: 'email', message: 'メールアドレスまたはログインIDを入力してください' }]);
    }
    const passwordHash = body.password ? await hashPassword(body.password) : undefined;
    let updated: AccountRow;
    let eventId: string;
    try {
      ({ updated, eventId } = await db.transaction().execute(async (trx) => {
        if (
          before.role === 'owner' &&
          body.role !== 'owner' &&
          (await otherOwners(trx, auth.tenantId, before.id)) === 0
        ) {
          throw unprocessable([{ field: 'role', message: 'オーナーが1人もいなくなるため、権限を変更できません' }]);
        }
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
      const field = duplicateField(error);
      if (field) throw identifierTaken(field);
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
      if (before.role === 'owner' && (await otherOwners(trx, auth.tenantId, before.id)) === 0) {
        throw unprocessable([{ field: 'id', message: 'オーナーが1人もいなくなるため、削除できません' }]);
      }
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
