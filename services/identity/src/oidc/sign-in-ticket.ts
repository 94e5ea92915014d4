import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { hashToken } from '../accounts/password-reset.ts';
import type { IdentityDb } from '../db/identity.tables.ts';
import { oidcMountPath } from './provider.ts';

/**
 * A sign-in ticket lets the person who has just set their password on the sign-up page finish the
 * sign-in interaction the SPA starts right after, without typing that password again. It is a random
 * token in a cookie the provider alone reads (path `/oidc`, HttpOnly); only its SHA-256 is stored,
 * it works once and for two minutes: long enough for the SPA to load and redirect, too short to be
 * worth stealing.
 */
export const signInTicketCookie = 'renkei_sign_in_ticket';
const signInTicketTtlSeconds = 120;

export async function issueSignInTicket(db: IdentityDb, accountId: string): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  // Tickets are few (one per sign-up): the issuing request sweeps the old ones, no job needed. A day's
  // worth stays for whoever looks into a sign-in afterwards.
  await db
    .deleteFrom('identity.sign_in_tickets')
    .where('expires_at', '<', sql<Date>`now() - interval '1 day'`)
    .execute();
  await db
    .insertInto('identity.sign_in_tickets')
    .values({
      token_hash: hashToken(token),
      account_id: accountId,
      expires_at: sql<Date>`now() + make_interval(secs => ${signInTicketTtlSeconds})`,
    })
    .execute();
  return token;
}

/**
 * The account of a valid ticket, which is then used: checking and marking it used are one statement,
 * so two requests racing with the same cookie sign in once.
 */
export async function consumeSignInTicket(db: IdentityDb, token: string): Promise<string | undefined> {
  if (!token) return undefined;
  const row = await db
    .updateTable('identity.sign_in_tickets')
    .set({ used_at: sql`now()` })
    .where('token_hash', '=', hashToken(token))
    .where('used_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .returning('account_id')
    .executeTakeFirst();
  return row?.account_id;
}

const cookieAttributes = `Path=${oidcMountPath}; HttpOnly; Secure; SameSite=Lax`;

export function signInTicketSetCookie(token: string): string {
  return `${signInTicketCookie}=${token}; Max-Age=${signInTicketTtlSeconds}; ${cookieAttributes}`;
}

export const signInTicketClearCookie = `${signInTicketCookie}=; Max-Age=0; ${cookieAttributes}`;

/**
 * The ticket cookie's value when the request carries one (possibly empty or malformed: no row matches
 * it, and the caller clears it all the same); undefined when there is none.
 */
export function signInTicketFrom(cookieHeader: string | undefined): string | undefined {
  for (const part of (cookieHeader ?? '').split(';')) {
    const index = part.indexOf('=');
    if (index < 0 || part.slice(0, index).trim() !== signInTicketCookie) continue;
    return part.slice(index + 1).trim();
  }
  return undefined;
}
