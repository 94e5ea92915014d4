import type { Position, ReadAllResult, RecordedEvent, Subscription } from './types.ts';

export interface PollingSubscriptionOptions {
  readAll: (from: Position, options: { limit: number; types?: readonly string[] }) => Promise<ReadAllResult>;
  /** Registers a callback fired when this process appended; returns the unregister function. */
  onLocalAppend?: (wake: () => void) => () => void;
  pollIntervalMs: number;
  batchSize: number;
  types?: readonly string[] | undefined;
  onError?: ((error: unknown) => void) | undefined;
}

/**
 * Delivers batches in order, waiting between empty reads. A failing handler is retried with the
 * same batch (at-least-once), backing off, so nothing is ever skipped.
 */
export function pollingSubscription(
  from: Position,
  handler: (events: RecordedEvent[], next: Position) => Promise<void>,
  options: PollingSubscriptionOptions,
): Subscription {
  let stopped = false;
  let position = from;
  let wakeUp: (() => void) | null = null;
  let interrupt: (() => void) | null = null;
  const unregister = options.onLocalAppend?.(() => wakeUp?.());

  /** `idle`: a poll wait, cut short by a local append; back-offs after errors are not. */
  const sleep = (ms: number, idle: boolean) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = null;
        interrupt = null;
        resolve();
      }
      interrupt = done;
      if (idle) wakeUp = done;
    });

  const loop = (async () => {
    let failures = 0;
    while (!stopped) {
      try {
        const result = await options.readAll(position, { limit: options.batchSize, types: options.types });
        if (stopped) break;
        if (result.events.length > 0) await handler(result.events, result.next);
        position = result.next;
        failures = 0;
        if (result.events.length < options.batchSize) await sleep(options.pollIntervalMs, true);
      } catch (error) {
        if (stopped) break;
        failures += 1;
        options.onError?.(error);
        await sleep(Math.min(5_000, options.pollIntervalMs * 2 ** Math.min(failures, 8)), false);
      }
    }
  })();

  return {
    async stop() {
      stopped = true;
      unregister?.();
      interrupt?.();
      await loop;
    },
  };
}
