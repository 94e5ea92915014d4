import pg from 'pg';

/**
 * One connection that LISTENs for the appends of every process on the database (migration 0006
 * notifies at each appending commit) and calls `heard` for each. A lost connection is opened again
 * after a back-off, and `heard` is called once it is back, for what was appended meanwhile; until
 * then the followers find appends by their polls, as they would without it. Stops trying when `pool`
 * ends (its database closed) or at `stop()`.
 */
export function listenForAppends(url: string, pool: pg.Pool, heard: () => void): { stop(): Promise<void> } {
  let stopped = false;
  let client: pg.Client | null = null;
  let retry: ReturnType<typeof setTimeout> | undefined;
  const poolEnded = () => (pool as pg.Pool & { ending?: boolean }).ending === true;

  const again = (attempt: number) => {
    if (stopped || poolEnded()) return;
    retry = setTimeout(() => void connect(attempt), Math.min(30_000, 250 * 2 ** attempt));
    retry.unref?.();
  };

  async function connect(attempt: number): Promise<void> {
    if (stopped || poolEnded()) return;
    const c = new pg.Client({ connectionString: url, application_name: 'renkei-append-listener' });
    // A lost connection emits `error` and then `end`; `end` is where it is opened again.
    c.on('error', () => undefined);
    c.on('notification', () => heard());
    c.on('end', () => {
      if (client !== c) return;
      client = null;
      again(0);
    });
    try {
      await c.connect();
      await c.query('LISTEN es_appended');
    } catch {
      await c.end().catch(() => undefined);
      again(attempt + 1);
      return;
    }
    if (stopped) {
      await c.end().catch(() => undefined);
      return;
    }
    client = c;
    heard();
  }

  void connect(0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(retry);
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}
