import {
  currentEventSchemaVersion,
  eventDecoder,
  UndecodableEventError,
  type DecodedEvent,
  type EventSchemas,
} from './events/event-decoder.ts';

/** The discriminated union of events a map of zod schemas describes (`type` is the key, `data` its output). */
export type EventUnion<S extends EventSchemas> = DecodedEvent<S>;

/** An event a fold met that its stream's schemas do not take: a newer writer, or a broken stream. */
export class UnknownEventError extends UndecodableEventError {
  constructor(
    readonly stream: string,
    reason: string,
  ) {
    super(`Stream ${stream}: ${reason}`);
  }
}

/**
 * The command side's reader of one stream family: the projections' `eventDecoder` (same rules: known
 * type, current schema version, data through its schema) with the stream named in the error. Events
 * read back without metadata (tests, folds of just-decided events) count as the current version.
 */
export function eventParser<const S extends EventSchemas>(family: string, schemas: S) {
  const decode = eventDecoder(schemas);
  return (event: {
    type: string;
    data: unknown;
    stream?: string;
    metadata?: { schema_version: number };
  }): EventUnion<S> => {
    try {
      return decode({
        type: event.type,
        data: event.data,
        metadata: { schema_version: event.metadata?.schema_version ?? currentEventSchemaVersion },
      });
    } catch (error) {
      if (error instanceof UndecodableEventError) throw new UnknownEventError(event.stream ?? family, error.message);
      throw error;
    }
  };
}
