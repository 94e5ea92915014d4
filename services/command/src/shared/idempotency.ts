import { createHash, randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ColumnType, Generated, Kysely } from 'kysely';
import { HttpError } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { formatPosition, type Position } from '@renkei/event-store';
import { deterministicId } from './deterministic-id.ts';

const idempotencyKeyHeader = 'idempotency-key';

/** `cmd.idempotency_keys` (command migrations): one row per (tenant, endpoint, key). */
interface IdempotencyKeysTable {
  tenant_id: string;
  endpoint: string;
  key: string;
  request_hash: string;
  resource_id: string;
  /** The first answer, once there is one (jsonb, written as JSON text). */
  response: ColumnType<unknown, string | null, string | null>;
  position: string | null;
  created_at: Generated<Date>;
}

interface IdempotencyTables {
  'cmd.idempotency_keys': IdempotencyKeysTable;
}

type Db = Kysely<IdempotencyTables>;

interface StoredResponse {
  body: unknown;
  position: string | null;
}

type IdempotencyClaim =
  | { kind: 'new' }
  /** Seen before with the same request; `stored` is null while the first attempt has not finished. */
  | { kind: 'retry'; stored: StoredResponse | null };

function readIdempotencyKey(header: string | string[] | undefined): string | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return null;
  if (!/^[\x21-\x7e]{1,200}$/.test(value)) {
    throw new HttpError(422, undefined, {
      errors: [{ field: 'Idempotency-Key', message: 'Idempotency-Keyは200文字以内の英数字記号で指定してください。' }],
    });
  }
  return value;
}

function requestHash(body: unknown): string {
  return createHash('sha256').update(JSON.stringify(body)).digest('hex');
}

/**
 * Records that (tenant, endpoint, key) belongs to this request. The same key with another body is a
 * client bug (422); the same key with the same body is a retry.
 */
async function claimIdempotencyKey(
  db: Db,
  claim: { tenantId: string; endpoint: string; key: string; hash: string; resourceId: string },
): Promise<IdempotencyClaim> {
  // The row may vanish between the insert that met it and the look-up: a first attempt that failed
  // frees its key. Then the key is free, and this request claims it again (it may become the first).
  for (;;) {
    const seen = await claimOnce(db, claim);
    if (seen) return seen;
  }
}

async function claimOnce(
  db: Db,
  claim: { tenantId: string; endpoint: string; key: string; hash: string; resourceId: string },
): Promise<IdempotencyClaim | null> {
  const inserted = await db
    .insertInto('cmd.idempotency_keys')
    .values({
      tenant_id: claim.tenantId,
      endpoint: claim.endpoint,
      key: claim.key,
      request_hash: claim.hash,
      resource_id: claim.resourceId,
    })
    .onConflict((oc) => oc.doNothing())
    .returning('key')
    .execute();
  if (inserted.length > 0) return { kind: 'new' };
  const rows = await db
    .selectFrom('cmd.idempotency_keys')
    .select(['request_hash', 'response', 'position'])
    .where('tenant_id', '=', claim.tenantId)
    .where('endpoint', '=', claim.endpoint)
    .where('key', '=', claim.key)
    .execute();
  const row = rows[0];
  if (!row) return null;
  if (row.request_hash !== claim.hash) {
    throw new HttpError(422, undefined, {
      errors: [{ field: 'Idempotency-Key', message: 'このIdempotency-Keyは別の内容のリクエストで使われています。' }],
    });
  }
  return { kind: 'retry', stored: row.response === null ? null : { body: row.response, position: row.position } };
}

async function storeIdempotentResponse(
  db: Db,
  claim: { tenantId: string; endpoint: string; key: string },
  response: StoredResponse,
): Promise<void> {
  await db
    .updateTable('cmd.idempotency_keys')
    .set({ response: JSON.stringify(response.body), position: response.position })
    .where('tenant_id', '=', claim.tenantId)
    .where('endpoint', '=', claim.endpoint)
    .where('key', '=', claim.key)
    .execute();
}

/**
 * Frees a key whose first request failed before it had an answer, so the client may send the key
 * again with a corrected body. Keys with a stored answer stay bound to it.
 */
async function releaseIdempotencyKey(
  db: Db,
  claim: { tenantId: string; endpoint: string; key: string },
): Promise<void> {
  await db
    .deleteFrom('cmd.idempotency_keys')
    .where('tenant_id', '=', claim.tenantId)
    .where('endpoint', '=', claim.endpoint)
    .where('key', '=', claim.key)
    .where('response', 'is', null)
    .execute();
}

/** How long a retry waits for the attempt it overlaps before it takes that attempt's work over. */
const inFlightWaitMs = 10_000;

/**
 * A retry that overlaps the first attempt waits for its answer, so both answer the same (a second
 * run would answer its own timestamps, or lose a name reservation to the first and answer 422).
 * Claims again on each look: a first attempt that failed has released the key, and this request
 * then runs as the first. After `inFlightWaitMs` the first attempt is taken for dead (a crash
 * between the claim and the answer) and the caller redoes its work, whose ids derive from the key.
 */
async function awaitFirstAttempt(
  db: Db,
  claim: { tenantId: string; endpoint: string; key: string; hash: string; resourceId: string },
): Promise<IdempotencyClaim> {
  const deadline = Date.now() + inFlightWaitMs;
  for (let wait = 10; ; wait = Math.min(wait * 2, 200)) {
    await new Promise((resolve) => setTimeout(resolve, wait));
    const claimed = await claimIdempotencyKey(db, claim);
    if (claimed.kind === 'new' || claimed.stored || Date.now() >= deadline) return claimed;
  }
}

export interface CreateAnswer<T> {
  body: T;
  position: Position | null;
}

/**
 * A create honouring `Idempotency-Key`: with a key, the new record's id derives from (tenant,
 * endpoint, key) and `create` is told so (`retryable`: its event ids must derive from it too, so a
 * retry appends the very same events); a retry of a finished request answers what the first one
 * did, the same key with another request is a 422. Without a key the id is random and nothing is
 * looked up. `hashed` is what identifies the request (the body, plus path parameters where the
 * endpoint has them).
 */
export async function idempotentCreate<T>(
  database: Pick<Database, 'typed'>,
  options: {
    request: FastifyRequest;
    reply: FastifyReply;
    tenantId: string;
    endpoint: string;
    hashed: unknown;
    /** The answer's ETag, for records with a version. */
    etag?: (answer: T) => string;
  },
  create: (id: string, retryable: { hash: string } | null) => Promise<CreateAnswer<T>>,
): Promise<T> {
  const { request, reply, tenantId, endpoint } = options;
  const db = database.typed<IdempotencyTables>();
  const key = readIdempotencyKey(request.headers[idempotencyKeyHeader]);
  if (!key) return answerCreated(reply, await create(randomUUID(), null), options.etag);
  const claim = { tenantId, endpoint, key };
  const hash = requestHash(options.hashed);
  const id = deterministicId(tenantId, endpoint, key);
  let claimed = await claimIdempotencyKey(db, { ...claim, hash, resourceId: id });
  if (claimed.kind === 'retry' && !claimed.stored)
    claimed = await awaitFirstAttempt(db, { ...claim, hash, resourceId: id });
  if (claimed.kind === 'retry' && claimed.stored) {
    // Stored as the first request answered it.
    const stored = claimed.stored.body as T;
    if (claimed.stored.position) void reply.header('x-position', claimed.stored.position);
    if (options.etag) void reply.header('etag', options.etag(stored));
    return stored;
  }
  let created: CreateAnswer<T>;
  try {
    created = await create(id, { hash });
  } catch (error) {
    await releaseIdempotencyKey(db, claim);
    throw error;
  }
  await storeIdempotentResponse(db, claim, {
    body: created.body,
    position: created.position ? formatPosition(created.position) : null,
  });
  return answerCreated(reply, created, options.etag);
}

function answerCreated<T>(reply: FastifyReply, created: CreateAnswer<T>, etag?: (answer: T) => string): T {
  if (created.position) reply.position(created.position);
  if (etag) void reply.header('etag', etag(created.body));
  return created.body;
}
