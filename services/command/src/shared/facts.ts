import { sql } from 'kysely';
import { HttpError, type UserRef } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { parseAccountEvent, parseTenantEvent } from '@renkei/domain';
import { readStreamOrEmpty, streamId, type EventStore, type RecordedEvent } from '@renkei/event-store';
import type { AuthContext } from '@renkei/service-kit';
import { fold, type Decider } from './decider.ts';

/**
 * Facts a command is checked against that live outside its own stream: other streams of the tenant
 * (folded through their decider, so through the domain's event schemas), the identity service's
 * tenant and account streams (through identity's event schemas), and the shared institution master.
 * Never the query side's tables.
 */
export async function readState<S, E extends { type: string; data: unknown }>(
  store: EventStore,
  tenantId: string,
  stream: string,
  decider: Decider<S, never, E>,
): Promise<{ state: S; events: RecordedEvent[] }> {
  const events = await readStreamOrEmpty(store, stream, tenantId);
  return { state: fold(decider, events.map(decider.parse)), events };
}

/** The institution must be in the shared master; unknown ids answer 404 like any missing record. */
export async function assertInstitutionExists(db: Database, id: string): Promise<{ id: string; name: string }> {
  const { rows } = await sql<{ id: string; name: string }>`
    SELECT id, name FROM ref.medical_institutions WHERE id = ${id}`.execute(db.kysely);
  if (!rows[0]) throw new HttpError(404);
  return rows[0];
}

/** The caller as shown next to their change (name from the identity service's account events). */
export async function callerRef(store: EventStore, auth: AuthContext): Promise<UserRef> {
  const events = await readStreamOrEmpty(store, streamId('account', auth.accountId), auth.tenantId);
  let name = '';
  for (const event of events.map(parseAccountEvent)) if (event.data.username) name = event.data.username;
  return { id: auth.accountId, name };
}

/** The tenant's `enabled_phase` flag, from the identity service's tenant events. */
export async function phaseEnabled(store: EventStore, tenantId: string): Promise<boolean> {
  const events = await readStreamOrEmpty(store, streamId('tenant', tenantId), tenantId);
  return events.map(parseTenantEvent).at(-1)?.data.enabled_phase ?? false;
}

/**
 * Whether the tenant lets the caller send campaigns as `address`: any address, unless the tenant has
 * `email_sender_restricted`, then only its allowed ones (identity's tenant events; letter case aside).
 */
export async function emailSenderAllowed(store: EventStore, auth: AuthContext, address: string): Promise<boolean> {
  if (!auth.features.includes('email_sender_restricted')) return true;
  const events = await readStreamOrEmpty(store, streamId('tenant', auth.tenantId), auth.tenantId);
  const allowed = events.map(parseTenantEvent).at(-1)?.data.email_sender_allowed_addresses ?? [];
  return allowed.some((a) => a.trim().toLowerCase() === address.trim().toLowerCase());
}
