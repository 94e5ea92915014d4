import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { maxPasswordLength, type FieldError } from '@renkei/contracts';
import type { IdentityDeps } from '../deps.ts';
import type { Mailer } from '../mail/mailer.ts';
import { publishQueued } from '../identity.events.ts';
import { clearSignInFailures } from '../oidc/sign-in-lockout.ts';
import { enqueueAccountUpdated, hashPassword, minPasswordLength } from './account.commands.ts';
import { findAccountByLogin, type AccountRow } from './account.queries.ts';
import { identityDb } from '../db/identity.tables.ts';

const resetTtlMs = 60 * 60 * 1000;

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function resetUrl(publicOrigin: string, token: string): string {
  return `${publicOrigin}/oidc/password/reset?token=${encodeURIComponent(token)}`;
}

/**
 * Mails a one-hour reset link when the address belongs to an active account. Only the token's hash is
 * stored. The caller shows the same answer either way, so nobody can probe which addresses exist.
 */
export async function requestPasswordReset(deps: IdentityDeps, mailer: Mailer, email: string): Promise<boolean> {
  const account = await findAccountByLogin(identityDb(deps.db), email);
  if (!account || !account.active || !account.email) return false;
  const token = randomBytes(32).toString('base64url');
  await identityDb(deps.db)
    .insertInto('identity.password_resets')
    .values({ token_hash: hashToken(token), account_id: account.id, expires_at: new Date(Date.now() + resetTtlMs) })
    .execute();
  await mailer.send({
    to: account.email,
    subject: '【連携】パスワード再設定のご案内',
    text: [
      `${account.username} 様`,
      '',
      '連携（Renkei）のパスワード再設定のお申し込みを受け付けました。',
      '下記のリンクから1時間以内に新しいパスワードを設定してください。',
      '',
      resetUrl(deps.config.publicOrigin, token),
      '',
      'このメールにお心当たりがない場合は、破棄してください。パスワードは変更されません。',
    ].join('\n'),
  });
  return true;
}

/** A password link is a reset (1 h) or a sign-up invitation (`invitationTtlMs`); each opens its own page. */
export type PasswordLinkPurpose = 'reset' | 'invitation';

async function findValidReset(deps: IdentityDeps, token: string, purpose: PasswordLinkPurpose) {
  if (!token) return undefined;
  return identityDb(deps.db)
    .selectFrom('identity.password_resets')
    .select(['token_hash', 'account_id'])
    .where('token_hash', '=', hashToken(token))
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst();
}

export async function isResetTokenValid(
  deps: IdentityDeps,
  token: string,
  purpose: PasswordLinkPurpose = 'reset',
): Promise<boolean> {
  return (await findValidReset(deps, token, purpose)) !== undefined;
}

export type ResetResult = { ok: true; accountId: string } | { ok: false; invalidToken: boolean; errors: FieldError[] };

export async function resetPassword(
  deps: IdentityDeps,
  input: { token: string; password: string; passwordConfirmation: string },
  purpose: PasswordLinkPurpose = 'reset',
): Promise<ResetResult> {
  const errors: FieldError[] = [];
  if (input.password.length < minPasswordLength) {
    errors.push({ field: 'password', message: `パスワードは${minPasswordLength}文字以上で入力してください。` });
  } else if (input.password.length > maxPasswordLength) {
    errors.push({ field: 'password', message: `パスワードは${maxPasswordLength}文字以内で入力してください。` });
  } else if (input.password !== input.passwordConfirmation) {
    errors.push({ field: 'password_confirmation', message: 'パスワード（確認）が一致しません。' });
  }
  if (errors.length) return { ok: false, invalidToken: false, errors };
  const passwordHash = await hashPassword(input.password);
  const used = await identityDb(deps.db)
    .transaction()
    .execute(async (trx) => {
      // Marking the token used in the same statement that checks it makes a link work exactly once.
      const reset = await trx
        .updateTable('identity.password_resets')
        .set({ used_at: sql`now()` })
        .where('token_hash', '=', hashToken(input.token))
        .where('purpose', '=', purpose)
        .where('used_at', 'is', null)
        .where('expires_at', '>', sql<Date>`now()`)
        .returning('account_id')
        .executeTakeFirst();
      if (!reset) return null;
      // The other links of the account end with this one: a password is set once per link sent.
      await trx
        .updateTable('identity.password_resets')
        .set({ used_at: sql`now()` })
        .where('account_id', '=', reset.account_id)
        .where('used_at', 'is', null)
        .execute();
      const before = await trx
        .selectFrom('identity.accounts')
        .select('is_confirmed')
        .where('id', '=', reset.account_id)
        .executeTakeFirstOrThrow();
      const account = (await trx
        .updateTable('identity.accounts')
        .set({ password_hash: passwordHash, is_confirmed: true, updated_at: sql`now()` })
        .where('id', '=', reset.account_id)
        .returningAll()
        .executeTakeFirstOrThrow()) as AccountRow;
      // Whoever holds the mailbox may sign in again at once, even while the account is locked.
      await clearSignInFailures(trx, account.id);
      // The mailbox is proven: an unconfirmed account becomes confirmed, which read models show.
      const queued = before.is_confirmed ? [] : [await enqueueAccountUpdated(trx, account, account.id)];
      return { accountId: account.id, queued };
    });
  if (!used) return { ok: false, invalidToken: true, errors: [] };
  await publishQueued(deps, used.queued);
  return { ok: true, accountId: used.accountId };
}
