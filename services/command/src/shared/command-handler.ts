import { HttpError } from '@renkei/contracts';
import {
  WrongExpectedRevisionError,
  lastRevision,
  readStreamOrEmpty,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type Position,
  type RecordedEvent,
} from '@renkei/event-store';
import type { AuthContext } from '@renkei/service-kit';
import { eventMetadata } from './command-context.ts';
import { fold, isRejection, type Decider } from './decider.ts';

/** Who sends a command and in which request (metadata of every event it appends). */
export interface CommandCaller {
  store: EventStore;
  auth: AuthContext;
  requestId: string;
}

/** A precondition a client sent (If-Match): what the stream must be at for the command to apply. */
interface IfMatch<S> {
  matches: (state: S, revision: number) => boolean;
  /** The 409's message, where the feature has its own. */
  message?: string;
}

export interface CommandRequest<S, C, E extends { type: string; data: unknown }> {
  stream: string;
  decider: Decider<S, C, E>;
  /** The command, or a function of the current state (a whole-value replace keeping known ids). */
  command: C | ((state: S) => C);
  /**
   * The stream is new (its id was made for this command): it is not read, and the append expects it
   * not to exist. Keeps a create one round trip.
   */
  isNew?: boolean;
  ifMatch?: IfMatch<S> | null;
  /**
   * A lost race with another writer: `recompute` decides again on the fresh stream (once; only for
   * commands that replace a value, whose decision is safe to recompute); `conflict` answers 409.
   */
  onRace: 'recompute' | 'conflict';
  /** Ids of the decided events (Idempotency-Key: a retry appends the very same events). */
  eventId?: (index: number) => string;
  /**
   * Where the stream does not exist yet but its record does elsewhere (an imported communication lives
   * in its import's chunk event until its first write): the events that begin the stream. The command
   * is decided on them as if they were stored, and they are appended before its events, expecting no
   * stream, so of two first writes one begins the stream and the other meets a race (`onRace`), as
   * two writes of an existing stream do. Null: the record is not there either. A command that decides
   * nothing appends nothing.
   */
  adopt?: () => Promise<{ events: E[]; eventId: (index: number) => string } | null>;
  /** The append itself, where a feature holds something with it (tag names); default `store.append`. */
  append?: (events: NewEvent[], expectedRevision: ExpectedRevision, decided: Decided<S, E>) => Promise<AppendResult>;
}

interface Decided<S, E> {
  /** The state the command was decided on, and after its events. */
  before: S;
  after: S;
  events: E[];
  /** The stream's revision before the command (-1: empty). */
  revisionBefore: number;
  /** The stored events it was decided on (who wrote the last one and when, for answers). */
  stored: RecordedEvent[];
}

export interface CommandResult<S, E> extends Decided<S, E> {
  /** The stream's revision after the command (unchanged when nothing was decided). */
  revision: number;
  /** Position of the last appended event; null when nothing was appended. */
  position: Position | null;
}

/**
 * The one way a write goes: read the tenant's stream (or nothing: a stream of another tenant reads
 * as empty, and the decider answers not found), check If-Match, decide, append with the caller's
 * metadata at the revision read. A rejection is a 404 or a 422 with field paths; a lost race is
 * decided again or a 409 (`onRace`). Answering (ETag, X-Position, body) is the route's: `answer`.
 */
export async function handleCommand<S, C, E extends { type: string; data: unknown }>(
  caller: CommandCaller,
  request: CommandRequest<S, C, E>,
): Promise<CommandResult<S, E>> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await attemptCommand(caller, request);
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || request.onRace === 'conflict' || attempt > 0) throw error;
    }
  }
}

async function attemptCommand<S, C, E extends { type: string; data: unknown }>(
  { store, auth, requestId }: CommandCaller,
  request: CommandRequest<S, C, E>,
): Promise<CommandResult<S, E>> {
  const { decider } = request;
  const stored = request.isNew ? [] : await readStreamOrEmpty(store, request.stream, auth.tenantId);
  const adopted = stored.length === 0 && !request.isNew && request.adopt ? await request.adopt() : null;
  const revisionBefore = lastRevision(stored);
  const before = fold(decider, [...stored.map((e) => decider.parse(e)), ...(adopted?.events ?? [])]);
  const command = typeof request.command === 'function' ? (request.command as (s: S) => C)(before) : request.command;
  const decision = decider.decide(before, command, new Date());
  // A record that is not there is a 404 whatever the client expected of it; a stale If-Match is a
  // 409 before the input is judged (the client must reload first).
  if (isRejection(decision) && decision.rejected === 'not_found') throw new HttpError(404);
  // An adopted beginning counts as stored: the revision it would have.
  if (request.ifMatch && !request.ifMatch.matches(before, revisionBefore + (adopted?.events.length ?? 0))) {
    throw new HttpError(409, request.ifMatch.message);
  }
  if (isRejection(decision)) {
    throw new HttpError(422, undefined, { errors: decision.rejected === 'invalid' ? decision.errors : [] });
  }
  const decided: Decided<S, E> = {
    before,
    after: decision.reduce(decider.evolve, before),
    events: decision,
    revisionBefore,
    stored,
  };
  if (decision.length === 0) return { ...decided, revision: revisionBefore, position: null };
  const metadata = eventMetadata(auth, requestId);
  const events: NewEvent[] = [
    ...(adopted?.events ?? []).map((e, i) => ({ id: adopted!.eventId(i), type: e.type, data: e.data, metadata })),
    ...decision.map((e, i) => ({
      type: e.type,
      data: e.data,
      metadata,
      ...(request.eventId ? { id: request.eventId(i) } : {}),
    })),
  ];
  const expected: ExpectedRevision = request.isNew || revisionBefore < 0 ? 'no_stream' : revisionBefore;
  const result = request.append
    ? await request.append(events, expected, decided)
    : await store.append(request.stream, events, { expectedRevision: expected });
  return { ...decided, revision: result.revision, position: result.position };
}
