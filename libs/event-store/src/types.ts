/** Metadata carried by every event. */
export interface EventMetadata {
  tenant_id: string;
  /** The account that caused it; null for system work (imports, sync jobs). */
  account_id: string | null;
  correlation_id: string;
  causation_id: string | null;
  schema_version: number;
}

export interface NewEvent<T extends string = string, D = unknown> {
  /** UUID; appends are idempotent on it. Generated when absent. */
  id?: string;
  type: T;
  data: D;
  metadata: EventMetadata;
}

/**
 * A point in the global order. For Postgres (transaction id, global position); for EventStoreDB
 * (commit, prepare). Compared as a pair, never by one number alone.
 */
export interface Position {
  readonly primary: bigint;
  readonly secondary: bigint;
}

export interface RecordedEvent<T extends string = string, D = unknown> {
  id: string;
  stream: string;
  /** 0-based revision within the stream. */
  revision: number;
  position: Position;
  type: T;
  data: D;
  metadata: EventMetadata;
  created_at: Date;
}

/** `no_stream`: must not exist; `any`: no check; a number: the stream's current last revision. */
export type ExpectedRevision = number | 'no_stream' | 'stream_exists' | 'any';

/**
 * Postgres store only: a function of the appending service that runs in the append's transaction
 * (`fn(args json) RETURNS TABLE (item int, ok boolean, detail json)`, called with
 * `[{ item, arg: argument }, …]` for the appends of a batch that pass their revision check). Its
 * writes commit with the events or not at all; an item it refuses is not appended and its caller gets
 * `AppendGuardRefusedError` with the guard's `detail`.
 */
export interface AppendGuard {
  fn: string;
  argument: unknown;
}

export interface AppendResult {
  /** Revision of the last appended event. */
  revision: number;
  /** Position of the last appended event (for X-Position). */
  position: Position;
}

/** One stream's append inside `appendMany`. */
export interface StreamAppend {
  stream: string;
  events: NewEvent[];
  expectedRevision: ExpectedRevision;
}

/** What one append of `appendMany` came to: its result, or the error `append` would have thrown. */
export type AppendOutcome = { ok: true; value: AppendResult } | { ok: false; error: unknown };

export interface ReadAllResult {
  events: RecordedEvent[];
  /** Where to continue from; equal to the input when nothing new is visible yet. */
  next: Position;
}

export interface Subscription {
  stop(): Promise<void>;
}

export interface EventStore {
  /**
   * Appends atomically. Throws `WrongExpectedRevisionError` on a revision conflict. Re-appending
   * events whose ids are already stored in that stream returns the original result (idempotent).
   */
  append(
    stream: string,
    events: NewEvent[],
    options: { expectedRevision: ExpectedRevision; guard?: AppendGuard },
  ): Promise<AppendResult>;
  /**
   * Many streams' appends in as few round trips as the store allows (the Postgres store: one
   * statement for up to thousands of streams), for bulk work such as imports. Each append keeps every
   * guarantee of `append` on its own (expected revision, idempotent on event ids, the stream's tenant)
   * and is atomic on its own: one refused append does not stop the others, and its outcome carries the
   * error `append` would have thrown. Appends to one stream apply in the order given; the outcomes are
   * in the order of `appends`.
   */
  appendMany(appends: readonly StreamAppend[]): Promise<AppendOutcome[]>;
  /** Whether `append` takes a `guard` (the Postgres store); others throw when given one. */
  readonly supportsGuards?: boolean;
  /**
   * Reads a stream of one tenant. A stream that does not exist, or belongs to another tenant,
   * throws `StreamNotFoundError`. With `types`, only events of those types (a caller that needs a long
   * stream's few status events, not its chunks of rows); a stream with none of them throws the same.
   */
  readStream(stream: string, options: { tenantId: string; types?: readonly string[] }): Promise<RecordedEvent[]>;
  /**
   * Reads many streams of one tenant in one round trip (bulk work such as imports). Streams that do
   * not exist or belong to another tenant are absent from the map. Optional: callers fall back to
   * `readStream` per stream.
   */
  readStreams?(streams: readonly string[], options: { tenantId: string }): Promise<Map<string, RecordedEvent[]>>;
  /** Events strictly after `from` in global order, never skipping one that commits later. */
  readAll(from: Position, options?: { limit?: number; types?: readonly string[] }): Promise<ReadAllResult>;
  /** Calls `handler` for each batch after `from`, in order; waits for new events. */
  subscribe(
    from: Position,
    handler: (events: RecordedEvent[], next: Position) => Promise<void>,
    options?: {
      batchSize?: number;
      types?: readonly string[];
      /** Called when reading or the handler fails; the same batch is retried after a back-off. */
      onError?: (error: unknown) => void;
      /**
       * Polling stores only: how long to wait between empty reads, and whether this process's own
       * appends cut the wait short. A follower of events that other services write (tenant settings)
       * polls slowly and ignores local appends, so it costs nothing per command.
       */
      pollIntervalMs?: number;
      wakeOnLocalAppend?: boolean;
    },
  ): Subscription;
  /** The position of the newest visible event. */
  headPosition(): Promise<Position>;
  /**
   * Registers a callback fired after each append made through this instance (same process), and with
   * `hearsOtherProcesses` after other processes' appends too, so pollers can look at once instead of
   * waiting for their next poll; returns the unregister function.
   */
  onAppend?(listener: () => void): () => void;
  /**
   * True when `onAppend` also reports appends of other processes (PostgreSQL: a LISTEN connection), so a
   * caught-up follower may poll slowly: it is woken as soon as any process appends.
   */
  readonly hearsOtherProcesses?: boolean;
  /** Number of visible events after `from` (for lag reports); optional, callers fall back to paging. */
  countAfter?(from: Position): Promise<number>;
  close(): Promise<void>;
}
