import { expect } from 'vitest';
import { fold, type Decider, type Rejection } from './decider.ts';

const now = new Date('2026-04-01T00:00:00.000Z');

/**
 * Decider tests: `given(decider, events).when(command).then(events)` or `.thenRejected(rejection)`.
 * The given events go through the decider's parser first, as stored events do.
 */
export function given<S, C, E extends { type: string; data: unknown }>(
  decider: Decider<S, C, E>,
  events: readonly { type: string; data: unknown }[] = [],
) {
  const state = fold(
    decider,
    events.map((e) => decider.parse(e)),
  );
  return {
    when: (command: C) => {
      const decision = () => decider.decide(state, command, now);
      return {
        then: (expected: readonly E[]) => expect(decision()).toEqual(expected),
        /** For events with generated ids: the decision matches `expected` where it names a value. */
        thenMatches: (expected: readonly unknown[]) => {
          const decided = decision();
          expect(Array.isArray(decided)).toBe(true);
          expect(decided).toMatchObject(expected);
          return decided as E[];
        },
        thenRejected: (expected: Rejection) => expect(decision()).toEqual(expected),
      };
    },
  };
}
