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
  // One tracker for the component's lifetime. Its first answer may be a page cached by an earlier visit:
  // an import left running there and over in the next answer has ended meanwhile.
  const [ended] = useState(() => importEndings());
  // The latest callback, so callers may pass an inline one without feeding the tracker again.
  const latest = useRef(onEnded);
  latest.current = onEnded;
  useEffect(() => {
    if (rows && ended(rows)) latest.current();
  }, [rows, ended]);
}
