import { describe, expect, it } from 'vitest';
import { pendingStop, resumeEvent } from './email-send-resume.ts';

const emailId = '4b0c8f3e-1d2a-4c5b-8e9f-0a1b2c3d4e5f';
const stop = (id: string) => ({ id, type: 'EmailSendParked', data: {} });
const resume = (parked: string) => ({
  id: 'ignored',
  type: 'EmailSendResumed',
  data: { email_id: emailId, parked_event_id: parked, resumed_at: '2026-11-30T00:00:00.000Z' },
});
const [a, b] = ['6e0d9a7c-0000-4000-8000-00000000000a', '6e0d9a7c-0000-4000-8000-00000000000b'];

describe('pendingStop', () => {
  it('is the last stop no resume answered', () => {
    expect(pendingStop([])).toBeNull();
    expect(pendingStop([stop(a)])).toEqual({ id: a });
    expect(pendingStop([stop(a), resume(a)])).toBeNull();
    expect(pendingStop([stop(a), resume(a), stop(b)])).toEqual({ id: b });
    // A resume of an earlier stop does not answer a later one.
    expect(pendingStop([stop(a), stop(b), resume(a)])).toEqual({ id: b });
  });

  it('gives one resume id per stop, so a repeated request appends it once', () => {
    const now = new Date('2026-11-30T01:00:00Z');
    expect(resumeEvent(emailId, a, now).id).toBe(resumeEvent(emailId, a, new Date()).id);
    expect(resumeEvent(emailId, a, now).id).not.toBe(resumeEvent(emailId, b, now).id);
    expect(resumeEvent(emailId, a, now).data).toEqual({
      email_id: emailId,
      parked_event_id: a,
      resumed_at: now.toISOString(),
    });
  });
});
