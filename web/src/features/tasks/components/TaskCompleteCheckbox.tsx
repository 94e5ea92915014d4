import { Box, Checkbox, type MantineSize } from '@mantine/core';
import type { Task } from '@renkei/contracts';
import { useSetTaskStatus } from '../tasks.queries.ts';
import { useTaskErrorHandler } from '../useTaskErrorHandler.ts';

/**
 * Completes (or reopens) a task in one click, over the version it was read at. The box sits in a
 * 44 px square that takes the tap (a label activates the input inside it): on the partner page a
 * phone shows, the 20 px box alone was missed by a thumb.
 */
export function TaskCompleteCheckbox({ task, size = 'lg' }: { task: Task; size?: MantineSize }) {
  const setStatus = useSetTaskStatus();
  // A 409 reloads the list, so the next click is made over the task's latest version.
  const onError = useTaskErrorHandler();
  return (
    <Box
      component="label"
      data-testid="task-complete-target"
      style={{
        width: 44,
        height: 44,
        display: 'flex',
        alignItems: 'center',
        justifyContent: 'center',
        flexShrink: 0,
        cursor: 'pointer',
        margin: -8,
      }}
    >
      <Checkbox
        size={size}
        aria-label={`${task.title}を完了にする`}
        checked={task.status === 'finished'}
        disabled={setStatus.isPending}
        onChange={(e) =>
          void setStatus
            .mutateAsync({ task, status: e.currentTarget.checked ? 'finished' : 'incomplete' })
            .catch(onError)
        }
      />
    </Box>
  );
}
