import type { z } from 'zod';

/** The event types a reader accepts, each with the zod schema of its data. */
export type EventSchemas = Readonly<Record<string, z.ZodType>>;

/** The discriminated union of the events described by `S`, with their data as the schemas output it. */
export type DecodedEvent<S extends EventSchemas> = {
  [K in keyof S & string]: { readonly type: K; readonly data: z.output<S[K]> };
}[keyof S & string];

/** What a decoder reads: the stored type, data and schema version of an event. */
export interface StoredEvent {
  readonly type: string;
  readonly data: unknown;
  readonly metadata: { readonly schema_version: number };
}

/** The one schema version every event is written with today; a later one needs an upcaster here first. */
export const currentEventSchemaVersion = 1;

/** An event a reader cannot take: a type it does not know, a schema version it cannot read, or data that fails its schema. */
export class UndecodableEventError extends Error {
  override readonly name = 'UndecodableEventError';
}

export interface EventDecoder<S extends EventSchemas> {
  /** The event types the decoder accepts (a projection's `eventTypes`). */
  readonly types: readonly (keyof S & string)[];
  (event: StoredEvent): DecodedEvent<S>;
}

/**
 * Reads stored events as the discriminated union of `schemas`: the type must be one of them, the
 * schema version the current one, and the data must pass the type's schema (defaults of fields added
 * later are filled in). Anything else throws, so a projection fails loudly on an event it does not
 * understand (the engine parks that tenant) instead of writing half a row from it.
 */
export function eventDecoder<const S extends EventSchemas>(schemas: S): EventDecoder<S> {
  const known = new Map<string, z.ZodType>(Object.entries(schemas));
  const decode = (event: StoredEvent): DecodedEvent<S> => {
    const schema = known.get(event.type);
    if (!schema) throw new UndecodableEventError(`Unknown event type ${event.type}`);
    if (event.metadata.schema_version !== currentEventSchemaVersion) {
      throw new UndecodableEventError(
        `${event.type}: schema version ${event.metadata.schema_version} cannot be read (expected ${currentEventSchemaVersion})`,
      );
    }
    const parsed = schema.safeParse(event.data);
    if (!parsed.success) throw new UndecodableEventError(`${event.type}: ${parsed.error.message}`);
    // The one place the union is assembled: `type` was looked up in `schemas` and `data` parsed by its schema.
    return { type: event.type, data: parsed.data } as DecodedEvent<S>;
  };
  return Object.assign(decode, { types: [...known.keys()] as (keyof S & string)[] });
}
