import { useCallback } from 'react';
import { useServices } from '../app/services-context.tsx';
import { handleMutationError, type MutationErrorOptions } from './mutation-errors.ts';

/** `handleMutationError` bound to the signed-in session; stable while its options are. */
export function useMutationErrorHandler({ conflictMessage }: MutationErrorOptions = {}): (error: unknown) => void {
  const { logout } = useServices();
  return useCallback(
    (error: unknown) => handleMutationError(error, () => void logout(), { conflictMessage }),
    [logout, conflictMessage],
  );
}
