import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createLocalJWKSet, errors as joseErrors, type JWTVerifyGetKey } from 'jose';
import { sql } from 'kysely';
import type { IdentityDb } from '../db/identity.tables.ts';

export interface SigningJwk {
  kty: 'RSA';
  kid: string;
  alg: 'RS256';
  use: 'sig';
  n: string;
  e: string;
  d?: string;
  p?: string;
  q?: string;
  dp?: string;
  dq?: string;
  qi?: string;
}

/**
 * When keys change (docs/decisions.md). A key signs for `rotationSeconds`; its successor is in the
 * JWKS `prepublishSeconds` before it signs, so every verifier's JWKS cache (jose: 10 minutes) has it
 * before the first token does. A forced rotation (`pnpm ops keys rotate`) publishes at once and signs
 * after `forcedLeadSeconds`, longer than jose's 30 s refetch cooldown plus an identity replica's
 * 30 s key poll, so a service that meets the new `kid` can always refetch and find it. A superseded
 * key stays published until every token it signed has expired, plus `clockSkewSeconds`.
 */
export interface SigningKeyPolicy {
  rotationSeconds: number;
  prepublishSeconds: number;
  forcedLeadSeconds: number;
  clockSkewSeconds: number;
}

export const defaultSigningKeyPolicy: SigningKeyPolicy = {
  rotationSeconds: 30 * 24 * 3600,
  prepublishSeconds: 24 * 3600,
  forcedLeadSeconds: 120,
  clockSkewSeconds: 300,
};

/** ID tokens live this long (provider ttl.IdToken); access tokens as configured. */
export const idTokenTtlSeconds = 3600;

/** How long a key must stay published after its last signature: the longest token it signs, plus skew. */
export function retentionSeconds(config: { accessTokenTtlSeconds: number; signingKeys: SigningKeyPolicy }): number {
  return Math.max(config.accessTokenTtlSeconds, idTokenTtlSeconds) + config.signingKeys.clockSkewSeconds;
}

export interface StoredSigningKey {
  kid: string;
  jwk: SigningJwk;
  signsFrom: Date;
}

export interface KeySet {
  /** The key that signs now. */
  signing: SigningJwk;
  /** Private keys the provider holds and whose public halves are in the JWKS; the signing key first. */
  keys: SigningJwk[];
}

export function generateSigningKey(): SigningJwk {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' }) as Omit<SigningJwk, 'kid' | 'alg' | 'use'>;
  return { ...jwk, kty: 'RSA', kid: randomUUID(), alg: 'RS256', use: 'sig' };
}

export function publicJwk(jwk: SigningJwk): SigningJwk {
  return { kty: jwk.kty, kid: jwk.kid, alg: jwk.alg, use: jwk.use, n: jwk.n, e: jwk.e };
}

const ms = (seconds: number) => seconds * 1000;

/** Keys in signing order, each with the moment the next one took over (when it did). */
function inOrder(keys: readonly StoredSigningKey[]) {
  const sorted = [...keys].sort((a, b) => a.signsFrom.getTime() - b.signsFrom.getTime());
  return sorted.map((key, i) => ({ key, supersededAt: sorted[i + 1]?.signsFrom }));
}

/** Keys whose last token has expired (their successor took over more than `retention` ago). */
function retiredAt(keys: readonly StoredSigningKey[], now: Date, retention: number): StoredSigningKey[] {
  return inOrder(keys)
    .filter(({ supersededAt }) => supersededAt && supersededAt.getTime() + ms(retention) <= now.getTime())
    .map(({ key }) => key);
}

/** What signs and what is published at `now`. */
export function keySetAt(keys: readonly StoredSigningKey[], now: Date, retention: number): KeySet {
  if (keys.length === 0) throw new Error('no signing key');
  const ordered = inOrder(keys).map(({ key }) => key);
  const signing = ordered.filter((k) => k.signsFrom <= now).at(-1) ?? ordered[0]!;
  const retired = new Set(retiredAt(keys, now, retention).map((k) => k.kid));
  const others = ordered.filter((k) => k !== signing && !retired.has(k.kid)).reverse();
  return { signing: signing.jwk, keys: [signing.jwk, ...others.map((k) => k.jwk)] };
}

export async function loadSigningKeys(db: IdentityDb): Promise<StoredSigningKey[]> {
  const rows = await db.selectFrom('identity.signing_keys').select(['kid', 'jwk', 'signs_from']).execute();
  return rows.map((r) => ({ kid: r.kid, jwk: r.jwk as SigningJwk, signsFrom: new Date(r.signs_from) }));
}

/**
 * Serialises key changes across replicas (and the ops CLI): inside, the caller sees the keys as
 * they are and nobody else adds one. Keys are generated before, so the lock is held for milliseconds.
 */
async function underKeyLock<T>(db: IdentityDb, work: (trx: IdentityDb, keys: StoredSigningKey[]) => Promise<T>) {
  return db.transaction().execute(async (trx) => {
    await sql`LOCK TABLE identity.signing_keys IN EXCLUSIVE MODE`.execute(trx);
    return work(trx, await loadSigningKeys(trx));
  });
}

const insertKey = (trx: IdentityDb, jwk: SigningJwk, signsFrom: Date) =>
  trx
    .insertInto('identity.signing_keys')
    .values({ kid: jwk.kid, jwk: JSON.stringify(jwk), signs_from: signsFrom })
    .execute();

/** When the next scheduled key should be published, given the keys; undefined when one is pending. */
function scheduledSuccessor(keys: readonly StoredSigningKey[], now: Date, policy: SigningKeyPolicy) {
  if (keys.length === 0) return { signsFrom: now };
  if (keys.some((k) => k.signsFrom > now)) return undefined;
  const current = inOrder(keys).at(-1)!.key;
  const due = current.signsFrom.getTime() + ms(policy.rotationSeconds);
  if (due - ms(policy.prepublishSeconds) > now.getTime()) return undefined;
  return { signsFrom: new Date(Math.max(due, now.getTime() + ms(policy.prepublishSeconds))) };
}

/**
 * The scheduled part of rotation, run at start and on every key poll: creates the first key, publishes
 * the successor of a key that is due, and deletes keys whose tokens have all expired. Idempotent.
 */
export async function maintainSigningKeys(
  db: IdentityDb,
  config: { accessTokenTtlSeconds: number; signingKeys: SigningKeyPolicy },
  now: Date,
): Promise<StoredSigningKey[]> {
  const policy = config.signingKeys;
  const retention = retentionSeconds(config);
  const before = await loadSigningKeys(db);
  const wanted = scheduledSuccessor(before, now, policy);
  if (!wanted && retiredAt(before, now, retention).length === 0) return before;
  const fresh = wanted ? generateSigningKey() : undefined;
  return underKeyLock(db, async (trx, keys) => {
    const successor = scheduledSuccessor(keys, now, policy);
    if (successor && fresh) {
      await insertKey(trx, fresh, successor.signsFrom);
      keys.push({ kid: fresh.kid, jwk: fresh, signsFrom: successor.signsFrom });
    }
    const retired = retiredAt(keys, now, retention).map((k) => k.kid);
    if (retired.length) await trx.deleteFrom('identity.signing_keys').where('kid', 'in', retired).execute();
    return keys.filter((k) => !retired.includes(k.kid));
  });
}

/**
 * `pnpm ops keys rotate`: a new key, published now, signing after the forced lead. A successor that
 * was published but never signed is dropped (nothing can carry its kid), so the new key is next.
 */
export async function rotateSigningKey(
  db: IdentityDb,
  config: { signingKeys: SigningKeyPolicy },
  now: Date = new Date(),
): Promise<{ kid: string; signsFrom: Date; dropped: string[] }> {
  const jwk = generateSigningKey();
  const signsFrom = new Date(now.getTime() + ms(config.signingKeys.forcedLeadSeconds));
  return underKeyLock(db, async (trx, keys) => {
    const dropped = keys.filter((k) => k.signsFrom > now).map((k) => k.kid);
    if (dropped.length) await trx.deleteFrom('identity.signing_keys').where('kid', 'in', dropped).execute();
    await insertKey(trx, jwk, signsFrom);
    return { kid: jwk.kid, signsFrom, dropped };
  });
}

/**
 * The signing keys as one identity process sees them: re-read on a poll and whenever a token names a
 * `kid` it does not know (at most once a second), and handed to `onChange` (which rebuilds the OpenID
 * provider) when what signs or what is published changed. `verificationKeys` serves the services of
 * the same process.
 */
export class SigningKeyRing {
  private set: KeySet;
  private local: JWTVerifyGetKey;
  private timer: NodeJS.Timeout | undefined;
  private lastReload = 0;
  private refreshing: Promise<void> | undefined;

  private constructor(
    private readonly db: IdentityDb,
    private readonly config: { accessTokenTtlSeconds: number; signingKeys: SigningKeyPolicy },
    private readonly clock: () => Date,
    initial: KeySet,
    private readonly onChange: (set: KeySet) => void,
  ) {
    this.set = initial;
    this.local = createLocalJWKSet(this.jwks());
  }

  static async open(options: {
    db: IdentityDb;
    config: { accessTokenTtlSeconds: number; signingKeys: SigningKeyPolicy };
    clock?: () => Date;
    onChange?: (set: KeySet) => void;
  }): Promise<SigningKeyRing> {
    const clock = options.clock ?? (() => new Date());
    const keys = await maintainSigningKeys(options.db, options.config, clock());
    const set = keySetAt(keys, clock(), retentionSeconds(options.config));
    return new SigningKeyRing(options.db, options.config, clock, set, options.onChange ?? (() => undefined));
  }

  get current(): KeySet {
    return this.set;
  }

  /** Public JWKS as published now. */
  jwks(): { keys: SigningJwk[] } {
    return { keys: this.set.keys.map(publicJwk) };
  }

  /** Runs the scheduled rotation and applies what the database holds now. */
  refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        const now = this.clock();
        const keys = await maintainSigningKeys(this.db, this.config, now);
        this.apply(keySetAt(keys, now, retentionSeconds(this.config)));
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  private apply(next: KeySet): void {
    const same =
      next.signing.kid === this.set.signing.kid &&
      next.keys.map((k) => k.kid).join() === this.set.keys.map((k) => k.kid).join();
    this.set = next;
    if (same) return;
    this.local = createLocalJWKSet(this.jwks());
    this.onChange(next);
  }

  start(pollIntervalMs = 30_000, onError: (error: unknown) => void = () => undefined): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.refresh().catch(onError), pollIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** For jose's jwtVerify: the published keys, re-read once when a token names an unknown `kid`. */
  readonly verificationKeys: JWTVerifyGetKey = async (header, token) => {
    try {
      return await this.local(header, token);
    } catch (error) {
      if (!(error instanceof joseErrors.JWKSNoMatchingKey) || Date.now() - this.lastReload < 1000) throw error;
      this.lastReload = Date.now();
      await this.refresh();
      return this.local(header, token);
    }
  };
}
