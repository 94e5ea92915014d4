/** Japan has no daylight saving: its day is UTC + 9 hours, always. */
const jstOffsetMs = 9 * 60 * 60 * 1000;

/** The Japanese calendar day (YYYY-MM-DD) of an instant: alerts, digests and report alerts are dated by it. */
export const jstDay = (at: Date): string => new Date(at.getTime() + jstOffsetMs).toISOString().slice(0, 10);
