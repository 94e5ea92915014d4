import { SegmentedControl, Stack, Title } from '@mantine/core';
import type { TaskAssignee, TaskListFilters } from '../task-list-params.ts';
import { TaskList } from './TaskList.tsx';

export interface TasksParams extends TaskListFilters {
  assignee: TaskAssignee;
}

/** The list call's scope of /tasks: the signed-in user's tasks, or the tenant's. */
export const tasksScopeOf = (assignee: TaskAssignee, currentUserId: string) =>
  assignee === 'mine' ? { user_id: currentUserId } : {};

/** My tasks or everyone's, with their institution; overdue ones marked, completed with one click. */
export function TasksPage({
  params,
  currentUserId,
  onParamsChange,
}: {
  params: TasksParams;
  currentUserId: string;
  onParamsChange: (next: Partial<TasksParams>) => void;
}) {
  const { assignee, ...filters } = params;
  return (
    <Stack gap="md">
      <Title order={2} size="h3">
        タスク
      </Title>
      <TaskList
        filters={filters}
        onFiltersChange={onParamsChange}
        scope={tasksScopeOf(assignee, currentUserId)}
        controls={
          <SegmentedControl
            aria-label="担当"
            value={assignee}
            onChange={(v) => onParamsChange({ assignee: v as TaskAssignee, page: 1 })}
            data={[
              { value: 'mine', label: '自分のタスク' },
              { value: 'all', label: 'すべて' },
            ]}
          />
        }
        emptyText={
          assignee === 'mine'
            ? '担当者が未設定のタスクやほかの人のタスクは「すべて」で確認できます。'
            : '活動の記録や医療機関のタスク画面から追加できます。'
        }
      />
    </Stack>
  );
}
