import { Alert, Group, Paper, Skeleton, Text, Title } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ApiError } from '../../../api/api-errors.ts';

/** A panel of the page: its title, its export buttons (not printed) and its body. */
export function Panel({
  title,
  testId,
  actions,
  children,
}: {
  title: string;
  testId: string;
  actions?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Paper withBorder p="md" radius="md" data-testid={testId}>
      <Group justify="space-between" mb="sm" wrap="nowrap">
        <Title order={2} size="h5">
          {title}
        </Title>
        {actions && (
          <Group gap="xs" data-print-hide>
            {actions}
          </Group>
        )}
      </Group>
      {children}
    </Paper>
  );
}

function failureMessage(error: unknown): string {
  if (error instanceof ApiError && error.status === 403) return 'この集計はご契約の機能に含まれていません。';
  if (error instanceof ApiError) return error.message;
  return 'データを取得できませんでした。時間をおいて再度お試しください。';
}

/**
 * The body of a panel through its query: a placeholder of the body's own height while loading (so nothing
 * below moves when the data arrives), the failure in place, and the previous figures dimmed while new
 * filters load.
 */
export function QueryBody<T>({
  query,
  height,
  children,
}: {
  query: Pick<UseQueryResult<T>, 'data' | 'error' | 'isPending' | 'isError' | 'isPlaceholderData'>;
  height: number;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending)
    return (
      <div aria-busy="true" style={{ minHeight: height }}>
        <Text size="sm" c="dimmed" mb="xs">
          読み込み中…
        </Text>
        <Skeleton h={height - 30} />
      </div>
    );
  if (query.isError)
    return (
      <Alert color="red" variant="light" mih={height} title="表示できません">
        {failureMessage(query.error)}
      </Alert>
    );
  return (
    <div
      data-panel-body
      aria-busy={query.isPlaceholderData}
      style={{ minHeight: height, opacity: query.isPlaceholderData ? 0.5 : 1, transition: 'opacity 150ms' }}
    >
      {children(query.data as T)}
    </div>
  );
}

/** One figure of a panel's summary: its name over its value. */
export function Figure({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <Paper withBorder p="sm" radius="md">
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={700} fz="lg" data-testid={testId}>
        {value}
      </Text>
    </Paper>
  );
}
