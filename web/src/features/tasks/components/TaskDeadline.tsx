import { Badge, Group, Text, type MantineSize } from '@mantine/core';
import type { Task } from '@renkei/contracts';
import { isOverdue } from '../task-list-params.ts';

/**
 * A task's deadline, red with 「期限切れ」 once it has passed while the task is still to do, and marked
 * 「今日まで」 on its last day (what the morning's look at the list is for).
 */
export function TaskDeadline({ task, today, size = 'sm' }: { task: Task; today: string; size?: MantineSize }) {
  if (!task.deadline) return null;
  const overdue = isOverdue(task, today);
  const dueToday = task.status === 'incomplete' && task.deadline === today;
  return (
    <Group gap={4} wrap="nowrap">
      <Text size={size} c={overdue ? 'red' : 'dimmed'}>
        期限 {task.deadline.replaceAll('-', '/')}
      </Text>
      {overdue && (
        <Badge color="red" size="sm">
          期限切れ
        </Badge>
      )}
      {dueToday && (
        <Badge color="orange" variant="light" size="sm">
          今日まで
        </Badge>
      )}
    </Group>
  );
}
