import { Button, Group, SegmentedControl, Stack, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useServices } from '../../../app/services-context.tsx';
import { institutionQueries } from '../../medical-institutions/medical-institutions.queries.ts';
import { tasksScopeOf, type TaskAssignee, type TasksParams } from '../task-list-params.ts';
import { useTaskDialogs } from '../useTaskDialogs.ts';
import { TaskDialogs } from './TaskDialogs.tsx';
import { TaskInstitutionSelect } from './TaskInstitutionSelect.tsx';
import { TaskList } from './TaskList.tsx';
import { TaskListPrintStyle } from './TaskListPrintStyle.tsx';

/** What to do next when the list is empty: widen the filter that hides tasks, or add one. */
function emptyTextOf(params: TasksParams): string {
  if (params.medical_institution_id)
    return params.assignee === 'mine'
      ? 'この医療機関のほかの人のタスクは「すべて」で、ほかの医療機関のタスクは医療機関の選択を外すと確認できます。'
      : '医療機関の選択を外すとすべての医療機関のタスクを確認できます。';
  return params.assignee === 'mine'
    ? '担当者が未設定のタスクやほかの人のタスクは「すべて」で確認できます。'
    : '「タスクを追加」から登録できます。活動の記録から作ったタスクもここに並びます。';
}

/**
 * My tasks or everyone's, of every institution or one picked by name, with their institution and the
 * communication they came from; overdue ones marked, completed with one click, edited and deleted.
 */
export function TasksPage({
  params,
  currentUserId,
  onParamsChange,
}: {
  params: TasksParams;
  currentUserId: string;
  onParamsChange: (next: Partial<TasksParams>) => void;
}) {
  const { api } = useServices();
  const { assignee, medical_institution_id: institutionId, ...filters } = params;
  // The picked institution's name (the URL has its id); the loader has asked for it already.
  const picked = useQuery({
    ...institutionQueries.summary(api, institutionId ?? ''),
    enabled: !!institutionId,
    retry: false,
  });
  const dialogs = useTaskDialogs();
  const pickedInstitution = institutionId && picked.data ? { id: institutionId, name: picked.data.name } : null;
  return (
    <Stack gap="md" data-tasks-page>
      <TaskListPrintStyle />
      <Group justify="space-between">
        <Title order={2} size="h3">
          タスク
        </Title>
        <Button onClick={() => dialogs.setEditing({ record: null })}>タスクを追加</Button>
      </Group>
      <TaskList
        filters={filters}
        onFiltersChange={onParamsChange}
        scope={tasksScopeOf(params, currentUserId)}
        controls={
          <>
            <SegmentedControl
              aria-label="担当"
              value={assignee}
              onChange={(v) => onParamsChange({ assignee: v as TaskAssignee, page: 1 })}
              data={[
                { value: 'mine', label: '自分のタスク' },
                { value: 'all', label: 'すべて' },
              ]}
            />
            <TaskInstitutionSelect
              // Mounted again once the name is known or the URL picks another one.
              key={`${institutionId ?? ''}:${picked.data?.name ?? ''}`}
              value={
                institutionId
                  ? { id: institutionId, name: picked.data?.name ?? (picked.isError ? '（不明な医療機関）' : '…') }
                  : null
              }
              onChange={(v) => onParamsChange({ medical_institution_id: v?.id, page: 1 })}
              placeholder="医療機関で絞り込み"
              w={260}
            />
          </>
        }
        emptyText={emptyTextOf(params)}
        onEdit={(task) => dialogs.setEditing({ record: task })}
        onDelete={dialogs.setDeleting}
      />
      {/* A task that is no visit's follow-up (a call to return, a document to send): for any institution
          or none, starting from the one the list is narrowed to. */}
      <TaskDialogs
        dialogs={dialogs}
        institution={pickedInstitution}
        institutionEditable
        currentUserId={currentUserId}
      />
    </Stack>
  );
}
