import { Checkbox, type MantineSize } from '@mantine/core';
import type { Task } from '@renkei/contracts';
import { useSetTaskStatus } from '../tasks.queries.ts';
import { useTaskErrorHandler } from '../useTaskErrorHandler.ts';

/** Completes (or reopens) a task in one click, over the version it was read at. */
export function TaskCompleteCheckbox({ task, size = 'lg' }: { task: Task; size?: MantineSize }) {
  const setStatus = useSetTaskStatus();
  // A 409 reloads the list, so the next click is made over the task's latest version.
  const onError = useTaskErrorHandler();
  return (
    <Checkbox
      size={size}
      aria-label={`${task.title}を完了にする`}
      checked={task.status === 'finished'}
      disabled={setStatus.isPending}
      onChange={(e) =>
        void setStatus.mutateAsync({ task, status: e.currentTarget.checked ? 'finished' : 'incomplete' }).catch(onError)
      }
    />
  );
}
