import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { isApiError } from '../../api/api-errors.ts';
import { toast } from '../../app/toast.ts';
import { useMutationErrorHandler } from '../../errors/useMutationErrorHandler.ts';
import { taskConflictMessage, taskQueries } from './tasks.queries.ts';

const goneMessage = 'このタスクは削除されています。一覧を読み込み直しました。';

/**
 * Reports a failed write on a listed task. A 409 (saved by someone else since it was read) or a 404
 * (deleted meanwhile) also reads the lists again, so the row shows what is there now and the next
 * click works; a vanished row is a toast rather than the 404 page, as the list itself is still there.
 */
export function useTaskErrorHandler(): (error: unknown) => void {
  const queryClient = useQueryClient();
  const onError = useMutationErrorHandler({ conflictMessage: taskConflictMessage });
  return useCallback(
    (error: unknown) => {
      const stale = isApiError(error) && (error.status === 409 || error.status === 404);
      if (stale) void queryClient.invalidateQueries({ queryKey: taskQueries.all });
      if (isApiError(error) && error.status === 404) toast.error(goneMessage);
      else onError(error);
    },
    [queryClient, onError],
  );
}
