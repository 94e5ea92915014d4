import { HttpError } from '@renkei/contracts';
import type { EventMetadata } from '@renkei/event-store';
import type { AuthContext } from '@renkei/service-kit';

export function eventMetadata(auth: AuthContext, correlationId: string): EventMetadata {
  return {
    tenant_id: auth.tenantId,
    account_id: auth.accountId,
    correlation_id: correlationId,
    causation_id: null,
    schema_version: 1,
  };
}

/** `If-Match: 3`, `"3"` or `W/"3"` → 3; absent → null. Anything else cannot match a version: 409. */
export function readIfMatch(header: string | string[] | undefined): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') return null;
  const m = /^(?:W\/)?"?(\d{1,9})"?$/.exec(value.trim());
  if (!m) throw new HttpError(409);
  return Number(m[1]);
}

export const etagOf = (version: number): string => `"${version}"`;

/** If-Match on a stream revision (`3`, `"3"`, `W/"3"`); null when the client sent none. */
export function revisionIfMatch(
  header: string | string[] | undefined,
): { matches: (_: unknown, revision: number) => boolean } | null {
  const expected = readIfMatch(header);
  return expected === null ? null : { matches: (_state, revision) => revision === expected };
}
