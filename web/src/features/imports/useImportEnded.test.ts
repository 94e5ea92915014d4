import type { ImportStatus } from '@renkei/contracts';
import { renderHook } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { useImportEnded } from './useImportEnded.ts';

type Row = { id: string; status: ImportStatus; created_at: string };

const row = (id: string, status: ImportStatus, minute: number): Row => ({
  id,
  status,
  created_at: `2026-11-29T10:${String(minute).padStart(2, '0')}:00.000Z`,
});

/** The hook as a page holds it; `answer` is a new answer of its list (undefined: a page loading). */
function setUp(first: readonly Row[] | undefined) {
  const onEnded = vi.fn();
  const { rerender } = renderHook(({ rows, fn }) => useImportEnded(rows, fn), {
    initialProps: { rows: first, fn: onEnded as () => void },
  });
  const answer = (rows: readonly Row[] | undefined, fn: () => void = onEnded) => rerender({ rows, fn });
  return { onEnded, answer };
}

describe('useImportEnded', () => {
  it('calls once for the answer in which an import seen running is over, not for the polls after', () => {
    const { onEnded, answer } = setUp([row('a', 'waiting', 5), row('old', 'completed', 1)]);
    answer([row('a', 'processing', 5), row('old', 'completed', 1)]);
    expect(onEnded).not.toHaveBeenCalled();
    answer([row('a', 'failed', 5), row('old', 'completed', 1)]);
    expect(onEnded).toHaveBeenCalledTimes(1);
    answer([row('a', 'failed', 5), row('old', 'completed', 1)]);
    answer([row('a', 'failed', 5), row('old', 'completed', 1)]);
    expect(onEnded).toHaveBeenCalledTimes(1);
  });

  it('calls nothing while the list loads nor for its first answer, whatever it shows', () => {
    const { onEnded, answer } = setUp(undefined);
    answer([row('a', 'completed', 5), row('b', 'failed', 4)]);
    answer([row('a', 'completed', 5), row('b', 'failed', 4)]);
    expect(onEnded).not.toHaveBeenCalled();
  });

  it('calls for an import newer than any shown that is already over (a small file done before the next poll)', () => {
    const { onEnded, answer } = setUp([row('old', 'completed', 1)]);
    answer([row('new', 'completed', 9), row('old', 'completed', 1)]);
    expect(onEnded).toHaveBeenCalledTimes(1);
  });

  it('calls the function passed last, so a page may pass an inline one', () => {
    const { onEnded, answer } = setUp([row('a', 'processing', 5)]);
    const later = vi.fn();
    answer([row('a', 'processing', 5)], later);
    answer([row('a', 'completed', 5)], later);
    expect(later).toHaveBeenCalledTimes(1);
    expect(onEnded).not.toHaveBeenCalled();
  });

  it('calls nothing when the user turns to an older page, and still counts an import left running on the first', () => {
    const { onEnded, answer } = setUp([row('a', 'processing', 30), row('b', 'completed', 20)]);
    // Page 2 loads, then shows older imports, all over.
    answer(undefined);
    answer([row('c', 'completed', 10), row('d', 'failed', 9)]);
    expect(onEnded).not.toHaveBeenCalled();
    // Back on page 1: its cached answer first, then the one fetched since `a` ended.
    answer([row('a', 'processing', 30), row('b', 'completed', 20)]);
    expect(onEnded).not.toHaveBeenCalled();
    answer([row('a', 'completed', 30), row('b', 'completed', 20)]);
    expect(onEnded).toHaveBeenCalledTimes(1);
  });
});
