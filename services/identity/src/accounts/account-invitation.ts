import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { IdentityConfig } from '../config.ts';
import type { Mailer } from '../mail/mailer.ts';
import { oidcMountPath } from '../oidc/provider.ts';
import type { AccountRow } from './account.queries.ts';
import { hashToken } from './password-reset.ts';
import type { Database } from '@renkei/db';
import { identityDb } from '../db/identity.tables.ts';

/** Seven days: an invitation sent on a Friday still works after a holiday week-end. */
export const invitationTtlDays = 7;
const invitationTtlMs = invitationTtlDays * 24 * 60 * 60 * 1000;

export const confirmationPath = `${oidcMountPath}/accounts/confirmation`;

/**
 * Mails a sign-up link to an invited account (one that has not set its password). Earlier links of
 * the account stop working: only the newest mail counts. Only the token's hash is stored.
 */
export async function sendInvitation(
  deps: { db: Database; config: Pick<IdentityConfig, 'publicOrigin'> },
  mailer: Mailer,
  account: Pick<AccountRow, 'id' | 'username' | 'email'>,
  tenantName: string,
  now = new Date(),
): Promise<void> {
  if (!account.email) throw new Error('An invitation needs an email');
  const token = randomBytes(32).toString('base64url');
  await identityDb(deps.db)
    .transaction()
    .execute(async (trx) => {
      await trx
        .updateTable('identity.password_resets')
        .set({ used_at: sql`now()` })
        .where('account_id', '=', account.id)
        .where('purpose', '=', 'invitation')
        .where('used_at', 'is', null)
        .execute();
      await trx
        .insertInto('identity.password_resets')
        .values({
          token_hash: hashToken(token),
          account_id: account.id,
          purpose: 'invitation',
          expires_at: new Date(now.getTime() + invitationTtlMs),
        })
        .execute();
    });
  const expires = new Date(now.getTime() + invitationTtlMs).toLocaleString('ja-JP', {
    timeZone: 'Asia/Tokyo',
    dateStyle: 'long',
    timeStyle: 'short',
  });
  await mailer.send({
    to: account.email,
    subject: '【連携】アカウント登録のご案内',
    text: [
      `${account.username} 様`,
      '',
      `${tenantName} の連携（Renkei）にアカウントが作成されました。`,
      `下記のリンクからパスワードを設定して、登録を完了してください（有効期限: ${expires}まで、${invitationTtlDays}日間・1回限り）。`,
      '',
      // The spec's route (/accounts/confirmation of the web), which forwards to `confirmationPath`.
      `${deps.config.publicOrigin}/app/accounts/confirmation?token=${encodeURIComponent(token)}`,
      '',
      '有効期限が切れた場合は、管理者（オーナー）に招待メールの再送を依頼してください。',
      'このメールにお心当たりがない場合は、破棄してください。',
    ].join('\n'),
  });
}
