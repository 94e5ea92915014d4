import { describe, expect, it } from 'vitest';
import { AlertFilters, AlertTriggers } from '@renkei/contracts';
import { evaluationEvents, initialAlertState, evolveAlert, parseAlertEvent, type AlertEvaluated } from '@renkei/domain';
import { notFound } from '../shared/decider.ts';
import { given } from '../shared/given-when-then.ts';
import { alertDecider } from './alert.decider.ts';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const evaluation = (counts: number[], on = '2026-04-02'): AlertEvaluated => ({
  alert_id: id(1),
  condition_id: id(2),
  name: '紹介減少',
  condition_summary: '前月の紹介が0件以下',
  condition_parameters: {
    triggers: AlertTriggers.parse({ referral_count: { comparison: 'lte', count: 0 } }),
    filters: AlertFilters.parse({}),
  },
  alert_date: '2026-03-01',
  evaluated_on: on,
  target_count: counts.length,
  institutions: {
    medical_institution_ids: counts.map((_, i) => id(100 + i)),
    referral_counts: counts,
    comparison_referral_counts: counts.map(() => 3),
    last_visit_dates: counts.map(() => null),
  },
});
const raised = { type: 'AlertRaised', data: evaluation([0]) };
const archived = { type: 'AlertArchived', data: { alert_id: id(1) } };

describe('alert decider', () => {
  it('archives an open alert', () => {
    given(alertDecider, [raised])
      .when({ type: 'ArchiveAlert', alertId: id(1) })
      .then([{ type: 'AlertArchived', data: { alert_id: id(1) } }]);
  });

  it('archiving an archived alert records nothing', () => {
    given(alertDecider, [raised, archived])
      .when({ type: 'ArchiveAlert', alertId: id(1) })
      .then([]);
  });

  it('an alert that is not there is not found', () => {
    given(alertDecider)
      .when({ type: 'ArchiveAlert', alertId: id(1) })
      .thenRejected(notFound());
  });
});

describe('evaluationEvents', () => {
  const fold = (events: { type: string; data: unknown }[]) =>
    events.map((e) => parseAlertEvent(e)).reduce(evolveAlert, initialAlertState());

  it('raises the first evaluation, updates on other figures, and repeats nothing', () => {
    expect(evaluationEvents(fold([]), evaluation([0]))).toEqual([{ type: 'AlertRaised', data: evaluation([0]) }]);
    // The same figures evaluated on another day: nothing to record.
    expect(evaluationEvents(fold([raised]), evaluation([0], '2026-04-20'))).toEqual([]);
    expect(evaluationEvents(fold([raised]), evaluation([0, 0]))).toEqual([
      { type: 'AlertUpdated', data: evaluation([0, 0]) },
    ]);
  });

  it('leaves an archived alert as archived', () => {
    expect(evaluationEvents(fold([raised, archived]), evaluation([0, 0]))).toEqual([]);
  });
});
