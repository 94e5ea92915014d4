import { Button, Group, Stack, Title } from '@mantine/core';
import { lazy, Suspense, useState } from 'react';
import { isApiError } from '../../../api/api-errors.ts';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { BackToInstitutionButton } from '../../medical-institutions/components/router-links.tsx';
import type { TaskListFilters } from '../task-list-params.ts';
import { useCreateTask, type TaskCreateValues } from '../tasks.queries.ts';
import { TaskList } from './TaskList.tsx';

// The form loads when first opened, not with the list.
const TaskFormModal = lazy(() => import('./TaskFormModal.tsx').then((m) => ({ default: m.TaskFormModal })));

/** One institution's tasks (/crms/{id}/tasks): the list of /tasks within the institution, and a new one. */
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
  const [adding, setAdding] = useState(false);
  const create = useCreateTask();
  const onError = useMutationErrorHandler();

  // Only a 422 keeps the form open (its messages go on the fields); any other failure closes it.
  const save = async (body: TaskCreateValues) => {
    try {
      await create.mutateAsync(body);
      toast.success('タスクを追加しました');
      setAdding(false);
    } catch (error) {
      if (!isApiError(error) || error.status !== 422) {
        setAdding(false);
        onError(error);
      }
      throw error;
    }
  };

  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap">
        <Title order={2} size="h3" data-testid="institution-tasks-title">
          {institution.name} のタスク
        </Title>
        <Group gap="xs">
          <BackToInstitutionButton id={institution.id} />
          <Button onClick={() => setAdding(true)}>タスクを追加</Button>
        </Group>
      </Group>
      <Suspense fallback={null}>
        {adding && (
          <TaskFormModal
            institution={institution}
            currentUserId={currentUserId}
            onClose={() => setAdding(false)}
            onSubmit={save}
          />
        )}
      </Suspense>
      <TaskList
        filters={filters}
        onFiltersChange={onFiltersChange}
        scope={{ medical_institution_id: institution.id }}
        showInstitution={false}
        emptyText="「タスクを追加」から登録できます。"
      />
    </Stack>
  );
}
