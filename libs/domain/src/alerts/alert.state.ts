import { stableJson } from '../medical-institutions/stable-json.ts';
import type { AlertEvaluated, parseAlertEvent } from './alert.events.ts';

export type AlertEvent = ReturnType<typeof parseAlertEvent>;

/** One alert as its stream holds it: the last evaluation, and whether it was archived. */
export interface AlertState {
  status: 'absent' | 'open' | 'archived';
  evaluation: AlertEvaluated | null;
}

export const initialAlertState = (): AlertState => ({ status: 'absent', evaluation: null });

export function evolveAlert(state: AlertState, event: AlertEvent): AlertState {
  switch (event.type) {
    case 'AlertRaised':
      return { status: 'open', evaluation: event.data };
    case 'AlertUpdated':
      return { ...state, evaluation: event.data };
    case 'AlertArchived':
      return { ...state, status: 'archived' };
    default: {
      const never: never = event;
      return never;
    }
  }
}

/**
 * What an evaluation of the alert's condition and month records: the first raises the alert; a later
 * one with other figures updates it (late referral data); an archived alert is left as the user
 * archived it, and an evaluation that finds the same institutions and figures records nothing (a
 * repeated evaluation never adds an event). When nothing matched and there is no alert yet, nothing is
 * raised (the caller does not call this); an open alert whose institutions all dropped out is updated
 * to 0 (the user saw it: it says the situation resolved rather than vanishing).
 */
export function evaluationEvents(state: AlertState, evaluation: AlertEvaluated): AlertEvent[] {
  if (state.status === 'archived') return [];
  if (state.status === 'absent') return [{ type: 'AlertRaised', data: evaluation }];
  const { evaluated_on: _on, ...next } = evaluation;
  const { evaluated_on: _before, ...current } = state.evaluation!;
  if (stableJson(next) === stableJson(current)) return [];
  return [{ type: 'AlertUpdated', data: evaluation }];
}
