import { isIpAllowed } from '@renkei/contracts/ip-allow-list';

/** What the gateway knows of the tenants' IP allow-lists. */
export interface IpAllowListSource {
  /** true/false once the lists are known; undefined before the first load (the caller refuses then). */
  allows(tenantId: string, ip: string): boolean | undefined;
  close(): void;
}

export interface FollowOptions {
  /** Identity's internal list (`<identity>/internal/ip_allow_lists`). */
  url: string;
  intervalMs?: number;
  /**
   * Failed polls are reported only before the first load, or once the lists are this old (default 30 s):
   * identity answers 503 while it is busy for a moment (the embedded install's first start), and the last
   * lists are still in force meanwhile, so such a blip is no news.
   */
  quietMs?: number;
  onError?: (error: unknown) => void;
}

/**
 * Follows identity's allow-lists by polling them (a handful of tenants, a few ranges each), so the
 * gateway checks every call without asking identity per request. A change reaches it within one
 * interval; identity checks its own calls against its table at once. A failed poll keeps the last
 * lists: an identity restart must not open every tenant.
 */
export function followIpAllowLists(options: FollowOptions): IpAllowListSource & { loaded: Promise<void> } {
  let lists: Map<string, string[]> | null = null;
  let markLoaded!: () => void;
  const loaded = new Promise<void>((resolve) => (markLoaded = resolve));
  let closed = false;
  let loadedAt = 0;

  const poll = async () => {
    try {
      const response = await fetch(options.url, { signal: AbortSignal.timeout(5_000) });
      if (!response.ok) throw new Error(`ip allow-lists: ${response.status}`);
      const body = (await response.json()) as { tenants?: unknown };
      if (!body.tenants || typeof body.tenants !== 'object') throw new Error('ip allow-lists: malformed answer');
      const next = new Map<string, string[]>();
      for (const [tenantId, list] of Object.entries(body.tenants as Record<string, unknown>)) {
        if (Array.isArray(list))
          next.set(
            tenantId,
            list.filter((c): c is string => typeof c === 'string'),
          );
      }
      lists = next;
      loadedAt = Date.now();
      markLoaded();
    } catch (error) {
      if (lists === null || Date.now() - loadedAt >= (options.quietMs ?? 30_000)) options.onError?.(error);
    }
  };
  void poll();
  const timer = setInterval(() => void poll(), options.intervalMs ?? 2_000);
  timer.unref();

  return {
    loaded,
    allows(tenantId, ip) {
      if (closed || lists === null) return undefined;
      return isIpAllowed(ip, lists.get(tenantId) ?? []);
    },
    close() {
      closed = true;
      clearInterval(timer);
    },
  };
}

/**
 * The tenant claim (`tid`) of a bearer token, read without checking the signature: the service behind
 * verifies it, and a token whose claim was changed is refused there (401), so this reading only picks
 * the list of the tenant the token claims. Undefined for anything that is not such a token.
 */
export function tenantOfBearer(authorization: string | undefined): string | undefined {
  const match = /^Bearer\s+([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.[A-Za-z0-9_-]*$/i.exec(authorization ?? '');
  if (!match) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(match[2]!, 'base64url').toString('utf8')) as { tid?: unknown };
    return typeof claims.tid === 'string' ? claims.tid : undefined;
  } catch {
    return undefined;
  }
}
