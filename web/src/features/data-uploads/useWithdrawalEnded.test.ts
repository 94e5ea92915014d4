import { renderHook } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { useWithdrawalEnded } from './useWithdrawalEnded.ts';

type Row = { id: string; withdrawing: boolean };
type Answer = { data: Row[]; meta: { page: number } };

const row = (id: string, withdrawing = false): Row => ({ id, withdrawing });
const onPage = (page: number, ...data: Row[]): Answer => ({ data, meta: { page } });

/** The hook as the page holds it; `answer` is a new answer of its history (undefined: a page loading). */
function setUp(first: Answer | undefined) {
  const onEnded = vi.fn();
  const { rerender } = renderHook(({ answer, fn }) => useWithdrawalEnded(answer, fn), {
    initialProps: { answer: first, fn: onEnded as () => void },
  });
  const answer = (next: Answer | undefined, fn: () => void = onEnded) => rerender({ answer: next, fn });
  return { onEnded, answer };
}

describe('useWithdrawalEnded', () => {
  it('calls once for the answer in which a record seen being withdrawn has left the page, not for the polls after', () => {
    const { onEnded, answer } = setUp(onPage(1, row('a', true), row('b')));
    answer(onPage(1, row('a', true), row('b')));
    expect(onEnded).not.toHaveBeenCalled();
    answer(onPage(1, row('b')));
    expect(onEnded).toHaveBeenCalledTimes(1);
    answer(onPage(1, row('b')));
    answer(onPage(1, row('b')));
    expect(onEnded).toHaveBeenCalledTimes(1);
  });

  it('calls for a record that started being withdrawn after the first answer', () => {
    const { onEnded, answer } = setUp(onPage(1, row('a'), row('b')));
    answer(onPage(1, row('a', true), row('b')));
    expect(onEnded).not.toHaveBeenCalled();
    answer(onPage(1, row('b')));
    expect(onEnded).toHaveBeenCalledTimes(1);
  });

  it('calls nothing for a record gone without being seen withdrawn, nor while the page loads', () => {
    const { onEnded, answer } = setUp(undefined);
    answer(onPage(1, row('a'), row('b')));
    answer(undefined);
    answer(onPage(1, row('b')));
    expect(onEnded).not.toHaveBeenCalled();
  });

  it('calls nothing when the user turns pages, and still counts a withdrawal seen on the first page', () => {
    const { onEnded, answer } = setUp(onPage(1, row('a', true), row('b')));
    answer(undefined);
    answer(onPage(2, row('c'), row('d')));
    expect(onEnded).not.toHaveBeenCalled();
    // Back on page 1: its cached answer first, then the one fetched since the withdrawal was done.
    answer(onPage(1, row('a', true), row('b')));
    expect(onEnded).not.toHaveBeenCalled();
    answer(onPage(1, row('b')));
    expect(onEnded).toHaveBeenCalledTimes(1);
  });

  it('calls once for several withdrawals done between two answers, and the function passed last', () => {
    const { onEnded, answer } = setUp(onPage(1, row('a', true), row('b', true), row('c')));
    const later = vi.fn();
    answer(onPage(1, row('c')), later);
    expect(later).toHaveBeenCalledTimes(1);
    expect(onEnded).not.toHaveBeenCalled();
  });
});
