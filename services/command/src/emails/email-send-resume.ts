import { EmailSendResumed, emailSendResumedEventId } from '@renkei/domain';
import type { NewEvent, RecordedEvent } from '@renkei/event-store';

/**
 * The stop of a campaign's send that no resume has answered yet, from its delivery stream's
 * `EmailSendParked` / `EmailSendResumed` events in stream order; null when the send is not stopped.
 */
export function pendingStop(events: readonly Pick<RecordedEvent, 'id' | 'type' | 'data'>[]): { id: string } | null {
  let stop: { id: string } | null = null;
  for (const event of events) {
    if (event.type === 'EmailSendParked') stop = { id: event.id };
    else if (event.type === 'EmailSendResumed' && EmailSendResumed.parse(event.data).parked_event_id === stop?.id)
      stop = null;
  }
  return stop;
}

/**
 * The resume of one stop. Its id derives from the stop's, so a double click or a retried request
 * appends it once; it goes on the delivery stream with any revision, because opens and clicks of the
 * recipients already mailed keep arriving on that stream and an expected revision would refuse the
 * user for them.
 */
export const resumeEvent = (emailId: string, stopId: string, now: Date): Omit<NewEvent, 'metadata'> => ({
  id: emailSendResumedEventId(stopId),
  type: 'EmailSendResumed',
  data: { email_id: emailId, parked_event_id: stopId, resumed_at: now.toISOString() },
});
