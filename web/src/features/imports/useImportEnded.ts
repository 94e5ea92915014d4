import type { ImportRecord } from '@renkei/contracts';
import { useEffect, useRef, useState } from 'react';
import { importEndings } from './import-endings.ts';

/**
 * Calls `onEnded` once for each answer of a polled import history in which one of its imports ended (see
 * `importEndings`). `rows` is the page the history shows, undefined while it loads. Turning pages needs no
 * reset: pages open on page 1 and list the newest first, so a later page's rows are never newer than those
 * seen, and an import seen running on the page left still counts when it shows over on return.
 */
export function useImportEnded(
  rows: readonly Pick<ImportRecord, 'id' | 'status' | 'created_at'>[] | undefined,
  onEnded: () => void,
): void {
  useEndings(rows, importEndings, onEnded);
}

/**
 * Feeds each answer of a polled list (undefined while it loads) to one tracker made by `endings` for the
 * component's lifetime, and calls `onEnded` for each answer it says something ended in. Its first answer
 * may be a page cached by an earlier visit: what was under way there and is over in the next answer has
 * ended meanwhile.
 */
export function useEndings<A>(answer: A | undefined, endings: () => (answer: A) => boolean, onEnded: () => void): void {
  const [ended] = useState(endings);
  // The latest callback, so callers may pass an inline one without feeding the tracker again.
  const latest = useRef(onEnded);
  latest.current = onEnded;
  useEffect(() => {
    if (answer !== undefined && ended(answer)) latest.current();
  }, [answer, ended]);
}
