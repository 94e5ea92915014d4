import type { DataUploadRecord } from '@renkei/contracts';
import { useEndings } from '../imports/useImportEnded.ts';

type Answer = { data: readonly Pick<DataUploadRecord, 'id' | 'withdrawing'>[]; meta: { page: number } };

/**
 * Follows the history's answers and tells, for each, whether a withdrawal is done since the last answer
 * of the same page: a record seen being withdrawn on a page and no longer on it. Only answers of the page
 * it was last seen on judge a record, so turning pages ends nothing. (One pushed onto the next page by newer
 * uploads while it is withdrawn counts as done then: the figures are read again once too early.)
 */
function withdrawalEndings(): (answer: Answer) => boolean {
  const lastSeenOn = new Map<string, number>();
  return ({ data, meta }) => {
    const listed = new Set(data.map((r) => r.id));
    let ended = false;
    for (const [id, page] of lastSeenOn) {
      if (page !== meta.page || listed.has(id)) continue;
      ended = true;
      lastSeenOn.delete(id);
    }
    for (const r of data) if (r.withdrawing) lastSeenOn.set(r.id, meta.page);
    return ended;
  };
}

/**
 * Calls `onEnded` once for each answer of the polled history in which a withdrawal seen under way is done
 * (see `withdrawalEndings`); `answer` is undefined while a page loads.
 */
export function useWithdrawalEnded(answer: Answer | undefined, onEnded: () => void): void {
  useEndings(answer, withdrawalEndings, onEnded);
}
