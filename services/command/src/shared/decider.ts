import type { FieldError } from '@renkei/contracts';

/** What a decider may refuse: a record that is not there (404), or input it cannot take (422 with fields). */
export type Rejection = { rejected: 'not_found' } | { rejected: 'invalid'; errors: FieldError[] };

/** The events a command leads to (none: nothing changes), or why it is refused. */
export type Decision<E> = E[] | Rejection;

export const notFound = (): Rejection => ({ rejected: 'not_found' });

/** A 422 naming the fields (paths such as `label_values.0.date_value`) with messages the user reads. */
export const invalid = (...errors: FieldError[]): Rejection => ({ rejected: 'invalid', errors });

export const isRejection = <E>(decision: Decision<E>): decision is Rejection => !Array.isArray(decision);

/**
 * The pure part of a command: `evolve` folds one event into the state, `decide` answers a command on
 * a state with events or a rejection, `parse` turns a stored event into the typed union (the domain's
 * zod parsers: an unknown type fails loudly). No I/O; time comes in as `now`.
 */
export interface Decider<S, C, E extends { type: string; data: unknown }> {
  initialState: () => S;
  evolve: (state: S, event: E) => S;
  decide: (state: S, command: C, now: Date) => Decision<E>;
  parse: (event: { type: string; data: unknown; stream?: string; metadata?: { schema_version: number } }) => E;
}

export function fold<S, C, E extends { type: string; data: unknown }>(
  decider: Decider<S, C, E>,
  events: readonly E[],
): S {
  return events.reduce(decider.evolve, decider.initialState());
}
