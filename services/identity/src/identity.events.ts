import { newEventMetadata, streamId, type EventStore } from '@renkei/event-store';
import { identityEventSchemas, type IdentityEventType } from '@renkei/domain';
import type { z } from 'zod';
import type { AccountRow } from './accounts/account.queries.ts';
import { tenantFeatures, type TenantRow } from './tenants/tenant.queries.ts';

type EventData<T extends IdentityEventType> = z.infer<(typeof identityEventSchemas)[T]>;

/**
 * Publishes one identity event to `tenant-<uuid>` / `account-<uuid>`. Parsing with the event's schema
 * strips anything that is not part of it, so a secret can never slip into the store.
 */
export async function publishIdentityEvent<T extends IdentityEventType>(
  store: EventStore,
  aggregate: 'tenant' | 'account',
  id: string,
  type: T,
  data: EventData<T>,
  meta: { tenantId: string; accountId: string | null },
): Promise<void> {
  const parsed = identityEventSchemas[type].parse(data);
  await store.append(
    streamId(aggregate, id),
    [
      {
        type,
        data: parsed,
        metadata: newEventMetadata(meta.tenantId, meta.accountId),
      },
    ],
    { expectedRevision: 'any' },
  );
}

export function tenantRegisteredData(tenant: TenantRow): EventData<'TenantRegistered'> {
  return {
    tenant_id: tenant.id,
    slug: tenant.slug,
    name: tenant.name,
    plan: tenant.plan,
    features: tenantFeatures(tenant),
    limits: { max_account_count: tenant.max_account_count, max_tag_count: tenant.max_tag_count },
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
