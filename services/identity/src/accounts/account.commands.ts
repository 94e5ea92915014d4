import { randomBytes, randomUUID } from 'node:crypto';
import { hash } from '@node-rs/argon2';
import { sql } from 'kysely';
import { HttpError, maxPasswordLength, unprocessable, type FieldError, type Role } from '@renkei/contracts';
import type { AdminDeps } from '../deps.ts';
import type { Position } from '@renkei/event-store';
import { accountRegisteredData, accountUpdatedData, enqueueIdentityEvent, publishQueued } from '../identity.events.ts';
import { clearSignInFailures } from '../oidc/sign-in-lockout.ts';
import { countAccounts, type AccountRow } from './account.queries.ts';
import { identityDb, type IdentityDb } from '../db/identity.tables.ts';

export const minPasswordLength = 8;

export interface NewAccount {
  username: string;
  email?: string | null | undefined;
  loginName?: string | null | undefined;
  /** Absent for an invitation: the person sets it through the sign-up link (needs an email). */
  password?: string | undefined;
  role?: Role | undefined;
  isConfirmed?: boolean | undefined;
  csAccount?: boolean | undefined;
  enabledMcMap?: boolean | undefined;
  enabledCrm?: boolean | undefined;
}

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const loginNamePattern = /^[A-Za-z0-9._-]{3,64}$/;

function validateNewAccount(input: NewAccount): FieldError[] {
  const errors: FieldError[] = [];
  if (!input.username.trim()) errors.push({ field: 'username', message: '氏名を入力してください' });
  if (!input.email && !input.loginName) {
    errors.push({ field: 'email', message: 'メールアドレスまたはログインIDを入力してください' });
  }
  if (input.email && !emailPattern.test(input.email)) {
    errors.push({ field: 'email', message: 'メールアドレスの形式が正しくありません' });
  }
  if (input.loginName && !loginNamePattern.test(input.loginName)) {
    errors.push({
      field: 'login_name',
      message: 'ログインIDは半角英数字と「._-」の3〜64文字で入力してください',
    });
  }
  if (input.password === undefined) {
    if (!input.email) {
      errors.push({
        field: 'password',
        message: 'メールアドレスのないアカウントは招待メールを送れないため、パスワードを入力してください',
      });
    }
  } else if (input.password.length < minPasswordLength) {
    errors.push({ field: 'password', message: `パスワードは${minPasswordLength}文字以上で入力してください` });
  } else if (input.password.length > maxPasswordLength) {
    errors.push({ field: 'password', message: `パスワードは${maxPasswordLength}文字以内で入力してください` });
  }
  return errors;
}

/**
 * A 409 (docs/decisions.md "Accounts API") that names the field taken, so a form can show it under that
 * input and keep what was typed: the person fixes the address or ID, as with a 422.
 */
export function identifierTaken(field: 'email' | 'login_name'): HttpError {
  const message =
    field === 'login_name' ? 'このログインIDは既に使用されています。' : 'このメールアドレスは既に使用されています。';
  return new HttpError(409, message, { errors: [{ field, message }] });
}

export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

/** Inserts an account inside the caller's transaction; the caller queues its event in the same one. */
export async function insertAccount(trx: IdentityDb, tenantId: string, input: NewAccount): Promise<AccountRow> {
  const errors = validateNewAccount(input);
  if (errors.length) throw unprocessable(errors);
  const email = input.email?.trim().toLowerCase() || null;
  const loginName = input.loginName?.trim() || null;
  const taken = await trx
    .selectFrom('identity.accounts')
    .select(['email', 'login_name'])
    .where((eb) =>
      eb.or([
        ...(email ? [eb(sql`lower(email)`, '=', email)] : []),
        ...(loginName ? [eb(sql`lower(login_name)`, '=', loginName.toLowerCase())] : []),
      ]),
    )
    .executeTakeFirst();
  if (taken) throw identifierTaken(email && taken.email?.toLowerCase() === email ? 'email' : 'login_name');
  const row = {
    id: randomUUID(),
    tenant_id: tenantId,
    username: input.username.trim(),
    email,
    login_name: loginName,
    role: input.role ?? 'member',
    // An invited account has a password no one knows until its sign-up link sets one.
    password_hash: await hashPassword(input.password ?? randomBytes(32).toString('base64url')),
    is_confirmed: input.isConfirmed ?? true,
    cs_account: input.csAccount ?? false,
    enabled_mc_map: input.enabledMcMap ?? false,
    enabled_crm: input.enabledCrm ?? true,
  };
  try {
    return (await trx
      .insertInto('identity.accounts')
      .values(row)
      .returningAll()
      .executeTakeFirstOrThrow()) as AccountRow;
  } catch (error) {
    // A concurrent registration of the same identifier lost the race to the unique index.
    const e = error as { code?: string; constraint?: string };
    if (e.code === '23505') throw identifierTaken(e.constraint === 'accounts_login_name_key' ? 'login_name' : 'email');
    throw error;
  }
}

export function enqueueAccountRegistered(trx: IdentityDb, account: AccountRow): Promise<string> {
  return enqueueIdentityEvent(trx, 'account', account.id, 'AccountRegistered', accountRegisteredData(account), {
    tenantId: account.tenant_id,
    accountId: null,
  });
}

export function enqueueAccountUpdated(trx: IdentityDb, account: AccountRow, by: string | null): Promise<string> {
  return enqueueIdentityEvent(trx, 'account', account.id, 'AccountUpdated', accountUpdatedData(account), {
    tenantId: account.tenant_id,
    accountId: by,
  });
}

/** Adds an account to a tenant, honouring the tenant's `max_account_count`. */
export async function addAccount(
  deps: AdminDeps,
  input: NewAccount & { tenantId: string },
): Promise<{ accountId: string; position: Position | undefined }> {
  const { account, eventId } = await identityDb(deps.db)
    .transaction()
    .execute(async (trx) => {
      const tenant = await trx
        .selectFrom('identity.tenants')
        .select(['id', 'max_account_count'])
        .where('id', '=', input.tenantId)
        .forUpdate()
        .executeTakeFirst();
      if (!tenant) throw unprocessable([{ field: 'tenant_id', message: 'テナントが見つかりません' }]);
      if (tenant.max_account_count !== null && (await countAccounts(trx, tenant.id)) >= tenant.max_account_count) {
        throw unprocessable([
          { field: 'base', message: `アカウント数の上限（${tenant.max_account_count}件）に達しています` },
        ]);
      }
      const account = await insertAccount(trx, tenant.id, input);
      return { account, eventId: await enqueueAccountRegistered(trx, account) };
    });
  return { accountId: account.id, position: await publishQueued(deps, [eventId]) };
}

export async function setPassword(deps: AdminDeps, accountId: string, password: string): Promise<void> {
  if (password.length < minPasswordLength) {
    throw unprocessable([{ field: 'password', message: `パスワードは${minPasswordLength}文字以上で入力してください` }]);
  }
  if (password.length > maxPasswordLength) {
    throw unprocessable([{ field: 'password', message: `パスワードは${maxPasswordLength}文字以内で入力してください` }]);
  }
  const passwordHash = await hashPassword(password);
  await identityDb(deps.db)
    .transaction()
    .execute(async (trx) => {
      await trx
        .updateTable('identity.accounts')
        .set({ password_hash: passwordHash, updated_at: sql`now()` })
        .where('id', '=', accountId)
        .execute();
      // A new password ends a lockout: whoever set it knows it.
      await clearSignInFailures(trx, accountId);
    });
}

export async function recordLogin(deps: AdminDeps, accountId: string): Promise<void> {
  await identityDb(deps.db)
    .updateTable('identity.accounts')
    .set({ last_login_date: sql`now()` })
    .where('id', '=', accountId)
    .execute();
}
