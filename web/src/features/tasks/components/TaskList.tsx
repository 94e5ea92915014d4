import { Card, Group, SegmentedControl, Stack, Text } from '@mantine/core';
import { useSuspenseQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { ListPagination } from '../../../ui/ListPagination.tsx';
import { todayInJapan } from '../../data-analysis/analysis-periods.ts';
import type { Task } from '@renkei/contracts';
import { EditDeleteButtons } from '../../../ui/EditDeleteButtons.tsx';
import { defaultSortOf, taskListQueryOf, type TaskListFilters } from '../task-list-params.ts';
import { taskQueries } from '../tasks.queries.ts';
import { TaskCommunicationLink } from './TaskCommunicationLink.tsx';
import { TaskCompleteCheckbox } from './TaskCompleteCheckbox.tsx';
import { InstitutionOfTask } from './InstitutionOfTask.tsx';
import { TaskDeadline } from './TaskDeadline.tsx';

const statusLabels = { incomplete: '未完了の', finished: '完了した', all: '' } as const;

// Each direction named by what comes first, for the sort key chosen.
const directionLabels = {
  deadline: { asc: '期限が近い順', desc: '期限が遠い順' },
  created_at: { asc: '古い順', desc: '新しい順' },
} as const;

const madeWithCommunication = (t: Task): t is Task & { communication_id: string } => t.communication_id !== null;

/**
 * A page of tasks within a scope (one staff member's, one institution's, or all): the status and sort
 * filters, the rows with their deadline (overdue ones marked), a one-click complete, the communication a
 * task was made with, 編集 / 削除, and the pages. The filters live in the caller's URL.
 */
export function TaskList({
  filters,
  onFiltersChange,
  scope,
  controls,
  showInstitution = true,
  emptyText,
  onEdit,
  onDelete,
}: {
  filters: TaskListFilters;
  onFiltersChange: (next: Partial<TaskListFilters>) => void;
  scope?: { user_id?: string; medical_institution_id?: string };
  /** More controls in the filter row, before the status (the assignee on /tasks). */
  controls?: ReactNode;
  /** Off where the page is one institution's already. */
  showInstitution?: boolean;
  /** What to do when nothing is listed; 「{未完了の}タスクはありません。」 comes first. */
  emptyText: string;
  onEdit: (task: Task) => void;
  onDelete: (task: Task) => void;
}) {
  const { api } = useServices();
  const { data } = useSuspenseQuery(taskQueries.list(api, taskListQueryOf(filters, scope)));
  const today = todayInJapan();
  const sort = filters.sort ?? defaultSortOf(filters.sort_by);

  return (
    <Stack gap="md">
      <Group gap="sm" wrap="wrap">
        {controls}
        <SegmentedControl
          aria-label="状況"
          value={filters.status}
          onChange={(v) => onFiltersChange({ status: v as TaskListFilters['status'], page: 1 })}
          data={[
            { value: 'incomplete', label: '未完了' },
            { value: 'finished', label: '完了' },
            { value: 'all', label: 'すべて' },
          ]}
        />
        <SegmentedControl
          aria-label="並び順"
          value={filters.sort_by}
          // A new key starts in its natural direction.
          onChange={(v) => onFiltersChange({ sort_by: v as TaskListFilters['sort_by'], sort: undefined, page: 1 })}
          data={[
            { value: 'created_at', label: '作成日順' },
            { value: 'deadline', label: '期限順' },
          ]}
        />
        <SegmentedControl
          aria-label="向き"
          value={sort}
          onChange={(v) => onFiltersChange({ sort: v as 'asc' | 'desc', page: 1 })}
          data={[
            { value: 'asc', label: directionLabels[filters.sort_by].asc },
            { value: 'desc', label: directionLabels[filters.sort_by].desc },
          ]}
        />
      </Group>
      <Text size="sm" c="dimmed" data-testid="task-total">
        全{data.meta.total_count}件
      </Text>
      {data.data.length === 0 ? (
        <Text c="dimmed" py="xl" ta="center" data-testid="task-list-empty">
          {statusLabels[filters.status]}タスクはありません。{emptyText}
        </Text>
      ) : (
        <Stack gap="xs">
          {data.data.map((t) => (
            <Card key={t.id} withBorder padding="sm" data-testid="task-row">
              <Group wrap="nowrap" align="flex-start" gap="sm">
                <TaskCompleteCheckbox task={t} />
                <Stack gap={2} style={{ flex: 1 }}>
                  <Text fw={600} td={t.status === 'finished' ? 'line-through' : undefined}>
                    {t.title}
                  </Text>
                  <Group gap="xs">
                    <TaskDeadline task={t} today={today} />
                    {t.staff && (
                      <Text size="sm" c="dimmed">
                        担当 {t.staff.name}
                      </Text>
                    )}
                  </Group>
                  {((showInstitution && t.medical_institution) || madeWithCommunication(t)) && (
                    <Group gap="md">
                      {showInstitution && t.medical_institution && (
                        <InstitutionOfTask institution={t.medical_institution} />
                      )}
                      {madeWithCommunication(t) && <TaskCommunicationLink task={t} />}
                    </Group>
                  )}
                </Stack>
                <EditDeleteButtons onEdit={() => onEdit(t)} onDelete={() => onDelete(t)} subject={t.title} />
              </Group>
            </Card>
          ))}
        </Stack>
      )}
      <ListPagination
        data-print-hide
        value={filters.page}
        totalPages={data.meta.total_pages}
        onChange={(page) => onFiltersChange({ page })}
        siblings={0}
      />
    </Stack>
  );
}
