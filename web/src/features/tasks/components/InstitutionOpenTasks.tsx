import { Card, Group, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useServices } from '../../../app/services-context.tsx';
import { currentUserQueries } from '../../current-user/current-user.queries.ts';
import { todayInJapan } from '../../data-analysis/analysis-periods.ts';
import { AnchorLink } from '../../medical-institutions/components/router-links.tsx';
import { isOverdue, taskListFiltersOf } from '../task-list-params.ts';
import { taskQueries } from '../tasks.queries.ts';
import { TaskCompleteCheckbox } from './TaskCompleteCheckbox.tsx';
import { TaskDeadline } from './TaskDeadline.tsx';

const shown = 5;

/**
 * The institution's tasks still to do, soonest deadline first (undated last), on its CRM page: overdue
 * ones in red, each completed with one click; the whole list is one click away on /crms/{id}/tasks.
 * `compact` is the printable partner chart's: plain text, no buttons or links, at most five rows.
 * Nothing shows where the tenant does not have the feature.
 */
export function InstitutionOpenTasks({ id, compact = false }: { id: string; compact?: boolean }) {
  const { api } = useServices();
  const user = useQuery(currentUserQueries.detail(api));
  const enabled = user.data?.features.includes('tasks') === true;
  // Under the tasks' own key, so completing or adding a task anywhere refreshes this card.
  const list = useQuery({
    ...taskQueries.list(api, {
      medical_institution_id: id,
      status: 'incomplete',
      sort_by: 'deadline',
      sort: 'asc',
      page: 1,
      per_page: shown,
    }),
    enabled,
  });
  if (!enabled || list.isPending) return null;
  const today = todayInJapan();
  const tasks = list.data?.data ?? [];
  const total = list.data?.meta.total_count ?? 0;

  if (compact)
    return (
      <Stack gap={2} data-testid="institution-open-tasks">
        {list.isError ? (
          <Text size="sm">読み込めませんでした</Text>
        ) : tasks.length === 0 ? (
          <Text size="sm">なし</Text>
        ) : (
          tasks.map((t) => (
            <Text key={t.id} size="sm" truncate="end">
              {t.deadline ? t.deadline.replaceAll('-', '/') : '期限なし'}
              {isOverdue(t, today) ? '（期限切れ）' : ''} {t.title}
              {t.staff ? `（担当 ${t.staff.name}）` : ''}
            </Text>
          ))
        )}
        {total > tasks.length && <Text size="xs">ほか {total - tasks.length}件</Text>}
      </Stack>
    );

  return (
    <Card withBorder padding="md" data-testid="institution-open-tasks">
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={3} size="h5">
            未完了のタスク（{total}件）
          </Title>
          <AnchorLink to="/crms/$id/tasks" params={{ id }} search={taskListFiltersOf({})} size="sm">
            すべて見る
          </AnchorLink>
        </Group>
        {list.isError ? (
          <Text size="sm" c="red">
            タスクを読み込めませんでした。
          </Text>
        ) : tasks.length === 0 ? (
          <Text size="sm" c="dimmed">
            未完了のタスクはありません。「すべて見る」からこの医療機関のタスクを追加できます。
          </Text>
        ) : (
          tasks.map((t) => (
            <Group key={t.id} gap="xs" wrap="nowrap" align="flex-start" data-testid="institution-open-task">
              <TaskCompleteCheckbox task={t} size="sm" />
              <Stack gap={0} style={{ minWidth: 0 }}>
                <Text size="sm" fw={600} truncate>
                  {t.title}
                </Text>
                <Group gap="xs">
                  <TaskDeadline task={t} today={today} size="xs" />
                  {t.staff && (
                    <Text size="xs" c="dimmed">
                      担当 {t.staff.name}
                    </Text>
                  )}
                </Group>
              </Stack>
            </Group>
          ))
        )}
      </Stack>
    </Card>
  );
}
