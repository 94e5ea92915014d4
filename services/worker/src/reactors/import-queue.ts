import { sql } from 'kysely';
import type { Database } from '@renkei/db';
import type { RecordedEvent } from '@renkei/event-store';
import { migrateProjections, recordParkedEvent, sleepUnlessAborted, type ReactorContext } from '@renkei/projections';

/** How a run shares the worker with other imports (the queue passes its own; a lone run needs none). */
export interface ImportRunControl {
  /** Runs one chunk when it is this import's turn (round-robin across running imports). */
  turn<T>(work: () => Promise<T>): Promise<T>;
  /** Aborted when the worker stops: the run ends after the chunk in hand and resumes on the next start. */
  signal?: AbortSignal;
}

/** The run stopped because the worker is stopping; nothing is wrong with the import. */
export class ImportInterruptedError extends Error {
  override name = 'ImportInterruptedError';
  constructor() {
    super('import interrupted by shutdown');
  }
}

/** The run cannot start yet (a read model behind the upload): tried again later, never counted as a failure. */
export class ImportNotReadyError extends Error {
  override name = 'ImportNotReadyError';
}

export interface ImportQueueOptions {
  /** The reactor's name: rows of `rm.import_jobs` and parked events carry it. */
  name: string;
  run(event: RecordedEvent, control: ImportRunControl, ctx: ReactorContext): Promise<void>;
  /** Tells the user the import failed for good (after `maxAttempts`). */
  onParked(event: RecordedEvent, error: unknown, ctx: ReactorContext): Promise<void>;
  /** Tries before a failing import is parked (default 5). */
  maxAttempts?: number;
  /** First back-off after a failure, multiplied by 4 after each (default 250 ms: 0.25, 1, 4, 16 s). */
  retryBaseMs?: number;
  /** Chunks applied at once across all imports (default: 1 on the embedded database, 2 on a server). */
  chunkSlots?: number;
  /** Imports running at once, each of its own tenant (default 8). */
  maxActive?: number;
  pollIntervalMs?: number;
}

interface JobRow {
  job_id: string;
  tenant_id: string;
  event: {
    id: string;
    stream: string;
    revision: number;
    position: [string, string];
    type: string;
    data: unknown;
    metadata: RecordedEvent['metadata'];
    created_at: string;
  };
  attempts: number;
  due: boolean;
  enqueued_at: Date | string;
}

const tableReady = new WeakSet<Database>();
async function ensureTable(db: Database): Promise<void> {
  if (tableReady.has(db)) return;
  await migrateProjections(db);
  tableReady.add(db);
}

/** Gives out `slots` turns; waiters are served first come, first served, so running imports alternate chunk by chunk. */
function fairTurns(slots: number) {
  let free = slots;
  const waiting: (() => void)[] = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (free > 0) free--;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free++;
    }
  };
}

/**
 * A durable queue of imports beside a reactor: `enqueue` (the reactor's handle) records each request
 * as a job, and `background` runs them. Scheduling: at most one running import per tenant (a tenant's
 * imports run in upload order), up to `maxActive` tenants at once, and their chunks take turns on
 * `chunkSlots` first come, first served, so a 100,000-row import of one tenant and a 2-row import of
 * another alternate chunk by chunk. A job that keeps failing is parked after `maxAttempts` and
 * reported; the other tenants' jobs never wait for it. A stop interrupts runs between chunks; the jobs
 * stay pending and resume on the next start.
 */
export function createImportQueue(options: ImportQueueOptions) {
  const maxAttempts = Math.max(1, options.maxAttempts ?? 5);
  const wakers = new Set<() => void>();
  const wake = () => {
    for (const w of [...wakers]) w();
  };

  async function enqueue(events: RecordedEvent[], ctx: ReactorContext): Promise<void> {
    await ensureTable(ctx.db);
    for (const e of events) {
      const stored = { ...e, position: [e.position.primary.toString(), e.position.secondary.toString()] };
      await sql`INSERT INTO rm.import_jobs (queue, job_id, tenant_id, event)
        VALUES (${options.name}, ${e.id}, ${e.metadata.tenant_id}, ${JSON.stringify(stored)}::jsonb)
        ON CONFLICT DO NOTHING`.execute(ctx.db.kysely);
    }
    wake();
  }

  async function background(ctx: ReactorContext & { signal: AbortSignal }): Promise<void> {
    const { db, signal } = ctx;
    await ensureTable(db);
    const pollIntervalMs = options.pollIntervalMs ?? (db.kind === 'pglite' ? 200 : 100);
    const turn = fairTurns(options.chunkSlots ?? (db.kind === 'pglite' ? 1 : 2));
    const maxActive = options.maxActive ?? 8;
    const active = new Map<string, Promise<void>>();
    const control: ImportRunControl = {
      signal,
      turn: (work) =>
        turn(async () => {
          if (signal.aborted) throw new ImportInterruptedError();
          return work();
        }),
    };

    const runJob = async (job: JobRow) => {
      const event: RecordedEvent = {
        ...job.event,
        position: { primary: BigInt(job.event.position[0]), secondary: BigInt(job.event.position[1]) },
        created_at: new Date(job.event.created_at),
      };
      const update = (query: ReturnType<typeof sql>) => query.execute(db.kysely);
      try {
        await options.run(event, control, ctx);
        await update(sql`UPDATE rm.import_jobs SET done_at = now(), last_error = NULL
          WHERE queue = ${options.name} AND job_id = ${job.job_id}`);
      } catch (error) {
        if (error instanceof ImportInterruptedError || signal.aborted) return;
        const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        if (error instanceof ImportNotReadyError) {
          await update(sql`UPDATE rm.import_jobs SET last_error = ${message}, not_before = now() + interval '1 second'
            WHERE queue = ${options.name} AND job_id = ${job.job_id}`);
          return;
        }
        const attempts = job.attempts + 1;
        if (attempts < maxAttempts) {
          ctx.logger?.warn(
            { err: error, queue: options.name, job_id: job.job_id, attempts },
            'import failed; retrying',
          );
          const delayMs = Math.min(60_000, (options.retryBaseMs ?? 250) * 4 ** (attempts - 1));
          await update(sql`UPDATE rm.import_jobs SET attempts = ${attempts}, last_error = ${message.slice(0, 2000)},
            not_before = now() + ${`${delayMs} milliseconds`}::interval
            WHERE queue = ${options.name} AND job_id = ${job.job_id}`);
          return;
        }
        ctx.logger?.error(
          { err: error, queue: options.name, tenant_id: job.tenant_id, event_id: job.job_id },
          'import parked after failing repeatedly',
        );
        await recordParkedEvent(db, options.name, event, error);
        await options.onParked(event, error, ctx);
        await update(sql`UPDATE rm.import_jobs SET attempts = ${attempts}, last_error = ${message.slice(0, 2000)}, done_at = now()
          WHERE queue = ${options.name} AND job_id = ${job.job_id}`);
      }
    };

    while (!signal.aborted) {
      try {
        if (active.size < maxActive) {
          // The oldest pending job of each tenant, so a tenant's imports keep their upload order.
          const { rows } = await sql<JobRow>`
            SELECT DISTINCT ON (tenant_id) job_id, tenant_id::text, event, attempts, not_before <= now() AS due, enqueued_at
              FROM rm.import_jobs WHERE queue = ${options.name} AND done_at IS NULL
             ORDER BY tenant_id, enqueued_at, job_id`.execute(db.kysely);
          rows.sort((a, b) => new Date(a.enqueued_at).getTime() - new Date(b.enqueued_at).getTime());
          for (const job of rows) {
            if (!job.due || active.has(job.tenant_id) || active.size >= maxActive) continue;
            active.set(
              job.tenant_id,
              runJob(job)
                .catch((error: unknown) =>
                  ctx.logger?.error({ err: error, queue: options.name }, 'import job bookkeeping failed'),
                )
                .finally(() => {
                  active.delete(job.tenant_id);
                  wake();
                }),
            );
          }
        }
      } catch (error) {
        if (!signal.aborted) ctx.logger?.error({ err: error, queue: options.name }, 'import queue poll failed');
      }
      await sleepUnlessAborted(pollIntervalMs, signal, wakers);
    }
    await Promise.allSettled([...active.values()]);
  }

  return { enqueue, background };
}
