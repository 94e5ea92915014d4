import type { Database } from '@renkei/db';
import { newEventMetadata, streamId, type EventStore, type Position } from '@renkei/event-store';
import { identityEventSchemas, type IdentityEventType } from '@renkei/domain';
import type { z } from 'zod';
import type { AccountRow } from './accounts/account.queries.ts';
import { tenantFeatures, type TenantRow } from './tenants/tenant.queries.ts';
import { enqueueEvent, outboxRelay } from './outbox/outbox.ts';
import type { IdentityDb } from './db/identity.tables.ts';

type EventData<T extends IdentityEventType> = z.infer<(typeof identityEventSchemas)[T]>;

/**
 * Queues one identity event for `tenant-<uuid>` / `account-<uuid>` in the caller's transaction (the
 * outbox), so the row change and its event commit together. Parsing with the event's schema strips
 * anything that is not part of it, so a secret can never slip into the store. Returns the event id.
 */
export async function enqueueIdentityEvent<T extends IdentityEventType>(
  trx: IdentityDb,
  aggregate: 'tenant' | 'account',
  id: string,
  type: T,
  data: EventData<T>,
  meta: { tenantId: string; accountId: string | null },
): Promise<string> {
  return enqueueEvent(trx, {
    stream: streamId(aggregate, id),
    type,
    data: identityEventSchemas[type].parse(data),
    metadata: newEventMetadata(meta.tenantId, meta.accountId),
  });
}

/**
 * After the commit: relays the queued events now and answers the store position of the last one
 * (for X-Position), or undefined when the store could not take them yet; the relay's poll retries
 * them, and the committed write stands either way.
 */
export function publishQueued(
  deps: { db: Database; store: EventStore },
  eventIds: readonly string[],
): Promise<Position | undefined> {
  return outboxRelay(deps).publish(eventIds);
}

export function tenantRegisteredData(tenant: TenantRow): EventData<'TenantRegistered'> {
  return {
    tenant_id: tenant.id,
    slug: tenant.slug,
    name: tenant.name,
    plan: tenant.plan,
    features: tenantFeatures(tenant),
    limits: { max_account_count: tenant.max_account_count, max_tag_count: tenant.max_tag_count },
    enabled_phase: tenant.enabled_phase,
    email_sender_allowed_addresses: tenant.email_sender_allowed_addresses,
  };
}

export function accountRegisteredData(account: AccountRow): EventData<'AccountRegistered'> {
  return {
    account_id: account.id,
    tenant_id: account.tenant_id,
    username: account.username,
    email: account.email,
    login_name: account.login_name,
    role: account.role,
    cs_account: account.cs_account,
  };
}

export function accountUpdatedData(account: AccountRow): EventData<'AccountUpdated'> {
  return { ...accountRegisteredData(account), is_confirmed: account.is_confirmed, active: account.active };
}
