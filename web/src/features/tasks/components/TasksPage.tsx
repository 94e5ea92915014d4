import { Badge, Card, Checkbox, Group, SegmentedControl, Stack, Text, Title } from '@mantine/core';
import { useSuspenseQuery } from '@tanstack/react-query';
import { ListPagination } from '../../../ui/ListPagination.tsx';
import type { Task } from '@renkei/contracts';
import { useServices } from '../../../app/services-context.tsx';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { AnchorLink } from '../../medical-institutions/components/router-links.tsx';
import { taskQueries, useSetTaskStatus } from '../tasks.queries.ts';

export interface TasksParams {
  page: number;
  status: 'incomplete' | 'finished' | 'all';
  sort_by: 'created_at' | 'deadline';
}

const todayInTokyo = () => new Date().toLocaleDateString('sv-SE', { timeZone: 'Asia/Tokyo' });

/** Tasks with their institution; overdue ones marked, completed with one click. */
export function TasksPage({
  params,
  onParamsChange,
}: {
  params: TasksParams;
  onParamsChange: (next: Partial<TasksParams>) => void;
}) {
  const { api } = useServices();
  const query = { ...params, per_page: 20, sort: params.sort_by === 'deadline' ? ('asc' as const) : ('desc' as const) };
  const { data } = useSuspenseQuery(taskQueries.list(api, query));
  const setStatus = useSetTaskStatus();
  const onError = useMutationErrorHandler();
  const today = todayInTokyo();
  const overdue = (t: Task) => t.status === 'incomplete' && t.deadline !== null && t.deadline < today;

  return (
    <Stack gap="md">
      <Title order={2} size="h3">
        タスク
      </Title>
      <Group gap="sm" wrap="wrap">
        <SegmentedControl
          value={params.status}
          onChange={(v) => onParamsChange({ status: v as TasksParams['status'], page: 1 })}
          data={[
            { value: 'incomplete', label: '未完了' },
            { value: 'finished', label: '完了' },
            { value: 'all', label: 'すべて' },
          ]}
        />
        <SegmentedControl
          value={params.sort_by}
          onChange={(v) => onParamsChange({ sort_by: v as TasksParams['sort_by'], page: 1 })}
          data={[
            { value: 'created_at', label: '作成日順' },
            { value: 'deadline', label: '期限順' },
          ]}
        />
      </Group>
      {data.data.length === 0 ? (
        <Text c="dimmed" py="xl" ta="center">
          タスクはありません。活動の記録からタスクを追加できます。
        </Text>
      ) : (
        <Stack gap="xs">
          {data.data.map((t) => (
            <Card key={t.id} withBorder padding="sm" data-testid="task-row">
              <Group wrap="nowrap" align="flex-start" gap="sm">
                <Checkbox
                  size="lg"
                  aria-label={`${t.title}を完了にする`}
                  checked={t.status === 'finished'}
                  disabled={setStatus.isPending}
                  onChange={(e) =>
                    setStatus
                      .mutateAsync({ task: t, status: e.currentTarget.checked ? 'finished' : 'incomplete' })
                      .catch(onError)
                  }
                />
                <Stack gap={2} style={{ flex: 1 }}>
                  <Text fw={600} td={t.status === 'finished' ? 'line-through' : undefined}>
                    {t.title}
                  </Text>
                  <Group gap="xs">
                    {t.deadline && (
                      <Text size="sm" c={overdue(t) ? 'red' : 'dimmed'}>
                        期限 {t.deadline.replaceAll('-', '/')}
                      </Text>
                    )}
                    {overdue(t) && (
                      <Badge color="red" size="sm">
                        期限切れ
                      </Badge>
                    )}
                    {t.staff && (
                      <Text size="sm" c="dimmed">
                        担当 {t.staff.name}
                      </Text>
                    )}
                  </Group>
                  {t.medical_institution && (
                    <AnchorLink to="/crms/$id" params={{ id: t.medical_institution.id }} size="sm">
                      {t.medical_institution.name}
                    </AnchorLink>
                  )}
                </Stack>
              </Group>
            </Card>
          ))}
        </Stack>
      )}
      <ListPagination
        value={params.page}
        totalPages={data.meta.total_pages}
        onChange={(page) => onParamsChange({ page })}
        siblings={0}
      />
    </Stack>
  );
}
