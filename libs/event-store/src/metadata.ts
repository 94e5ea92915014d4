import { randomUUID } from 'node:crypto';
import type { EventMetadata } from './types.ts';

/**
 * Metadata of an event that starts its own piece of work: a fresh correlation id and no cause.
 * `accountId` null means system work (imports, sync jobs, seeding).
 */
export function newEventMetadata(tenantId: string, accountId: string | null = null): EventMetadata {
  return {
    tenant_id: tenantId,
    account_id: accountId,
    correlation_id: randomUUID(),
    causation_id: null,
    schema_version: 1,
  };
}
