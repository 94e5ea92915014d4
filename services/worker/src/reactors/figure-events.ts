import { ReferralDataImportFinished } from '@renkei/domain';
import type { RecordedEvent } from '@renkei/event-store';

/**
 * Events after which a tenant's referral figures differ (docs/decisions.md "Alerts re-evaluated when the
 * figures change"): a completed upload (late data), a withdrawn upload, an owner's hand match of an
 * institution (its rows move to it), and referrals entered, corrected or removed by hand. Reverse
 * referrals are not read by any alert. Both the alert conditions and the institution reports' alerts
 * follow them, so the two kinds of alert never disagree about when the data changed.
 */
export const figureEvents = [
  'ReferralDataImportFinished',
  'ReferralDataImportWithdrawalCompleted',
  'ReferralInstitutionMatched',
  'ReferralEntered',
  'ReferralEntryUpdated',
  'ReferralEntryDeleted',
] as const;

/** Whether `event` changed figures: a failed or aborted upload wrote none. */
const changesFigures = (event: RecordedEvent) =>
  event.type !== 'ReferralDataImportFinished' || ReferralDataImportFinished.parse(event.data).status === 'completed';

/**
 * The last figure-changing event of each tenant in a batch: twenty hand entries of a tenant evaluate its
 * alerts once, after the last of them.
 */
export function lastFigureChangeByTenant(events: readonly RecordedEvent[]): Map<string, RecordedEvent> {
  const changed = new Map<string, RecordedEvent>();
  for (const event of events)
    if ((figureEvents as readonly string[]).includes(event.type) && changesFigures(event))
      changed.set(event.metadata.tenant_id, event);
  return changed;
}
