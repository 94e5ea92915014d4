/** The outcome of one call inside a batch. */
export type Settled<R> = { ok: true; value: R } | { ok: false; error: unknown };

/**
 * Group commit for database calls: at most `maxInFlight` batches run at once, and calls that arrive
 * meanwhile wait and leave together in the next one (up to `maxBatch`). A lone call leaves at once,
 * so an idle process adds no delay, and a busy one pays one round trip and one commit per batch
 * instead of per call. `run` answers every call of its batch, in order; if it throws, every call of
 * the batch fails with that error.
 */
export function createBatcher<T, R>(options: {
  maxInFlight: number;
  maxBatch: number;
  /**
   * Collect the calls of one turn of the event loop before sending. For a database that runs in
   * this thread (PGlite): its statements run synchronously, so no call can arrive while one is on
   * its way and every call would leave alone; the calls of requests read in the same turn leave
   * together instead.
   */
  gatherTurn?: boolean;
  run(batch: T[]): Promise<Settled<R>[]>;
}): (call: T) => Promise<R> {
  const maxInFlight = Math.max(1, options.maxInFlight);
  type Pending = { call: T; resolve(value: R): void; reject(error: unknown): void };
  const queue: Pending[] = [];
  let inFlight = 0;

  function dispatch(): void {
    while (inFlight < maxInFlight && queue.length > 0) {
      const batch = queue.splice(0, options.maxBatch);
      inFlight++;
      options.run(batch.map((b) => b.call)).then(
        (outcomes) => finish(() => settleAll(batch, outcomes)),
        (error: unknown) => finish(() => batch.forEach((b) => b.reject(error))),
      );
    }
  }

  /**
   * The next batch leaves before this one's callers go on: they answer their requests on the same
   * thread, and the database would sit idle until the last of them had. (pg sends a query a tick
   * later, so the callers wait for the next turn of the event loop.)
   */
  function finish(answer: () => void): void {
    inFlight--;
    dispatch();
    setImmediate(answer);
  }

  function settleAll(batch: Pending[], outcomes: Settled<R>[]): void {
    batch.forEach((b, i) => {
      const outcome = outcomes[i];
      if (!outcome) b.reject(new Error('batcher: a call of the batch was not answered'));
      else if (outcome.ok) b.resolve(outcome.value);
      else b.reject(outcome.error);
    });
  }

  let turnScheduled = false;
  const dispatchNextTurn = () => {
    turnScheduled = false;
    dispatch();
  };

  return (call) =>
    new Promise<R>((resolve, reject) => {
      queue.push({ call, resolve, reject });
      if (!options.gatherTurn) dispatch();
      else if (!turnScheduled) {
        turnScheduled = true;
        setImmediate(dispatchNextTurn);
      }
    });
}

/** Runs `fn` and records its outcome instead of throwing. */
export async function settle<R>(fn: () => Promise<R>): Promise<Settled<R>> {
  try {
    return { ok: true, value: await fn() };
  } catch (error) {
    return { ok: false, error };
  }
}

/**
 * True when the server answered with an error, so the statement (and the implicit transaction of a
 * lone statement) did not commit. Without a server's answer (a dropped connection) it may have.
 */
export function refusedByServer(error: unknown): boolean {
  // An ErrorResponse carries a severity and a five-character SQLSTATE; a socket error's code is a
  // name such as ECONNRESET.
  const e = error as { code?: unknown; severity?: unknown } | null;
  return typeof e?.severity === 'string' && typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code);
}
