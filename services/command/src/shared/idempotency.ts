import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { HttpError } from '@renkei/contracts';

export const idempotencyKeyHeader = 'idempotency-key';

export interface StoredResponse {
  body: unknown;
  position: string | null;
}

export type IdempotencyClaim =
  | { kind: 'new' }
  /** Seen before with the same request; `stored` is null while the first attempt has not finished. */
  | { kind: 'retry'; stored: StoredResponse | null };

export function readIdempotencyKey(header: string | string[] | undefined): string | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return null;
  if (!/^[\x21-\x7e]{1,200}$/.test(value)) {
    throw new HttpError(422, undefined, {
      errors: [{ field: 'Idempotency-Key', message: 'Idempotency-Keyは200文字以内の英数字記号で指定してください。' }],
    });
  }
  return value;
}

export function requestHash(body: unknown): string {
  return createHash('sha256').update(JSON.stringify(body)).digest('hex');
}

/**
 * Records that (tenant, endpoint, key) belongs to this request. The same key with another body is a
 * client bug (422); the same key with the same body is a retry.
 */
export async function claimIdempotencyKey(
  db: Kysely<any>,
  claim: { tenantId: string; endpoint: string; key: string; hash: string; resourceId: string },
): Promise<IdempotencyClaim> {
  const inserted = await sql<{ key: string }>`
    INSERT INTO cmd.idempotency_keys (tenant_id, endpoint, key, request_hash, resource_id)
    VALUES (${claim.tenantId}, ${claim.endpoint}, ${claim.key}, ${claim.hash}, ${claim.resourceId})
    ON CONFLICT DO NOTHING
    RETURNING key`.execute(db);
  if (inserted.rows.length > 0) return { kind: 'new' };
  const { rows } = await sql<{ request_hash: string; response: unknown; position: string | null }>`
    SELECT request_hash, response, position FROM cmd.idempotency_keys
     WHERE tenant_id = ${claim.tenantId} AND endpoint = ${claim.endpoint} AND key = ${claim.key}`.execute(db);
  const row = rows[0]!;
  if (row.request_hash !== claim.hash) {
    throw new HttpError(422, undefined, {
      errors: [{ field: 'Idempotency-Key', message: 'このIdempotency-Keyは別の内容のリクエストで使われています。' }],
    });
  }
  return { kind: 'retry', stored: row.response === null ? null : { body: row.response, position: row.position } };
}

export async function storeIdempotentResponse(
  db: Kysely<any>,
  claim: { tenantId: string; endpoint: string; key: string },
  response: StoredResponse,
): Promise<void> {
  await sql`
    UPDATE cmd.idempotency_keys SET response = ${JSON.stringify(response.body)}::jsonb, position = ${response.position}
     WHERE tenant_id = ${claim.tenantId} AND endpoint = ${claim.endpoint} AND key = ${claim.key}`.execute(db);
}

/**
 * Frees a key whose first request failed before it had an answer, so the client may send the key
 * again with a corrected body. Keys with a stored answer stay bound to it.
 */
export async function releaseIdempotencyKey(
  db: Kysely<any>,
  claim: { tenantId: string; endpoint: string; key: string },
): Promise<void> {
  await sql`
    DELETE FROM cmd.idempotency_keys
     WHERE tenant_id = ${claim.tenantId} AND endpoint = ${claim.endpoint} AND key = ${claim.key} AND response IS NULL`.execute(
    db,
  );
}
