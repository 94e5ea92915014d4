import { Button, Group, Stack, Title } from '@mantine/core';
import { BackToInstitutionButton } from '../../medical-institutions/components/router-links.tsx';
import type { TaskListFilters } from '../task-list-params.ts';
import { useTaskDialogs } from '../useTaskDialogs.ts';
import { TaskDialogs } from './TaskDialogs.tsx';
import { TaskList } from './TaskList.tsx';
import { TaskListPrintStyle } from './TaskListPrintStyle.tsx';

/**
 * One institution's tasks (/crms/{id}/tasks): the list of /tasks within the institution, a new one,
 * and each edited or deleted in place.
 */
export function InstitutionTasksPage({
  institution,
  filters,
  currentUserId,
  onFiltersChange,
}: {
  institution: { id: string; name: string };
  filters: TaskListFilters;
  currentUserId: string;
  onFiltersChange: (next: Partial<TaskListFilters>) => void;
}) {
  const dialogs = useTaskDialogs();

  return (
    <Stack gap="md" data-tasks-page>
      <TaskListPrintStyle />
      <Group justify="space-between" wrap="wrap">
        <Title order={2} size="h3" data-testid="institution-tasks-title">
          {institution.name} のタスク
        </Title>
        <Group gap="xs">
          <BackToInstitutionButton id={institution.id} />
          <Button onClick={() => dialogs.setEditing({ record: null })}>タスクを追加</Button>
        </Group>
      </Group>
      <TaskDialogs dialogs={dialogs} institution={institution} currentUserId={currentUserId} />
      <TaskList
        filters={filters}
        onFiltersChange={onFiltersChange}
        scope={{ medical_institution_id: institution.id }}
        showInstitution={false}
        emptyText="「タスクを追加」から登録できます。"
        onEdit={(task) => dialogs.setEditing({ record: task })}
        onDelete={dialogs.setDeleting}
      />
    </Stack>
  );
}
