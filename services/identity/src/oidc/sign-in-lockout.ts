import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { IdentityDb } from '../db/identity.tables.ts';

/** Wrong passwords allowed within `windowSeconds` before the sign-in is locked for `lockSeconds`. */
export interface LockoutPolicy {
  maxFailures: number;
  windowSeconds: number;
  lockSeconds: number;
}

/** docs/decisions.md: 10 failures within 15 minutes lock for 15 minutes. */
export const defaultLockoutPolicy: LockoutPolicy = { maxFailures: 10, windowSeconds: 15 * 60, lockSeconds: 15 * 60 };

/**
 * What failures are counted against: the account when the login names one (its email and its login
 * name count together), otherwise the login itself, hashed, so an unknown login locks exactly like a
 * real one and the lock tells nobody whether the account exists. The hash keeps whatever was typed
 * into the login field (sometimes a password) out of the table.
 */
export function lockoutKey(account: { id: string } | undefined, login: string): string {
  if (account) return `account:${account.id}`;
  return `login:${createHash('sha256').update(login.trim().toLowerCase()).digest('hex')}`;
}

export async function isLockedOut(db: IdentityDb, key: string): Promise<boolean> {
  const row = await db
    .selectFrom('identity.sign_in_failures')
    .select(sql<boolean>`locked_until > now()`.as('locked'))
    .where('key', '=', key)
    .executeTakeFirst();
  return row?.locked === true;
}

/**
 * Counts one failure in one statement (concurrent attempts cannot undercount) and answers whether
 * the key is now locked. A window or lock that has run out starts a new count; failures while
 * locked do not extend the lock, so nobody can keep an account locked longer than one lock period
 * per `maxFailures` attempts.
 */
export async function recordSignInFailure(
  db: IdentityDb,
  key: string,
  policy: LockoutPolicy = defaultLockoutPolicy,
): Promise<{ locked: boolean }> {
  const window = sql`make_interval(secs => ${policy.windowSeconds})`;
  const lock = sql`now() + make_interval(secs => ${policy.lockSeconds})`;
  const stale = sql`(f.window_started_at <= now() - ${window} OR f.locked_until <= now())`;
  const count = sql`CASE WHEN ${stale} THEN 1 ELSE f.failures + 1 END`;
  const { rows } = await sql<{ locked: boolean }>`
    INSERT INTO identity.sign_in_failures AS f (key, failures, window_started_at, locked_until)
    VALUES (${key}, 1, now(), CASE WHEN 1 >= ${policy.maxFailures} THEN ${lock} END)
    ON CONFLICT (key) DO UPDATE SET
      failures = ${count},
      window_started_at = CASE WHEN ${stale} THEN now() ELSE f.window_started_at END,
      locked_until = CASE
        WHEN f.locked_until > now() THEN f.locked_until
        WHEN ${count} >= ${policy.maxFailures} THEN ${lock}
        ELSE NULL
      END
    RETURNING coalesce(locked_until > now(), false) AS locked`.execute(db);
  return { locked: rows[0]?.locked === true };
}

/** A successful sign-in or a new password forgets the account's failures (and ends its lock). */
export async function clearSignInFailures(db: IdentityDb, accountId: string): Promise<void> {
  await db
    .deleteFrom('identity.sign_in_failures')
    .where('key', '=', lockoutKey({ id: accountId }, ''))
    .execute();
}

/** Rows whose window and lock have both run out count for nothing; the sweeper removes them. */
export async function deleteStaleSignInFailures(db: IdentityDb, policy: LockoutPolicy = defaultLockoutPolicy) {
  await db
    .deleteFrom('identity.sign_in_failures')
    .where(sql<boolean>`window_started_at <= now() - make_interval(secs => ${policy.windowSeconds})`)
    .where(sql<boolean>`coalesce(locked_until <= now(), true)`)
    .execute();
}
