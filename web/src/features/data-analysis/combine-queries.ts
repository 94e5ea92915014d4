import type { UseQueryResult } from '@tanstack/react-query';

/** Two queries a panel needs (the period and the comparison period) as one state; no comparison: null. */
export function combine<A, B>(a: UseQueryResult<A>, b: UseQueryResult<B> | null) {
  const isPending = a.isPending || (b?.isPending ?? false);
  const isError = a.isError || (b?.isError ?? false);
  return {
    isPending,
    isError,
    error: a.error ?? b?.error ?? null,
    isPlaceholderData: a.isPlaceholderData || (b?.isPlaceholderData ?? false),
    data: isPending || isError ? undefined : ([a.data as A, b ? (b.data as B) : null] as const),
  };
}
