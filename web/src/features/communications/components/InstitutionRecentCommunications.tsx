import { Badge, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { Communication } from '@renkei/contracts';
import { useServices } from '../../../app/services-context.tsx';
import { currentUserQueries } from '../../current-user/current-user.queries.ts';
import { institutionQueries } from '../../medical-institutions/medical-institutions.queries.ts';
import { AnchorLink } from '../../medical-institutions/components/router-links.tsx';
import { communicationQueries, communicationTypeLabels } from '../communications.queries.ts';
import { communicationAnchor } from '../communication-anchor.ts';
import { LogCommunicationButton } from './LogCommunicationButton.tsx';

const shown = 5;
// The first page of /crms/{id}/communications as it opens (newest first), so every record shown here
// is on that page and its link scrolls to it.
const timeline = { page: 1, sort: 'desc' } as const;

const day = (d: string) => d.replaceAll('-', '/');
/** The story's first non-empty line: what the record is about, at a glance. */
const firstLine = (c: Communication) =>
  c.story
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '') ?? '';

/**
 * The institution's latest communications on its CRM page (type, date, staff, what happened), each
 * linking to its place on the institution's timeline; 「活動を記録」 in its header opens the same form as
 * that timeline, whether or not the institution has records yet. `compact` is the printable partner chart's: plain text, no buttons or links.
 * Nothing shows where the tenant does not have the feature.
 */
export function InstitutionRecentCommunications({ id, compact = false }: { id: string; compact?: boolean }) {
  const { api } = useServices();
  const user = useQuery(currentUserQueries.detail(api));
  const enabled = user.data?.features.includes('communications') === true;
  // Under the communications' own key, so a record saved anywhere refreshes this card.
  const list = useQuery({
    ...communicationQueries.institutionSearch(api, id, { ...timeline, per_page: shown }),
    enabled,
  });
  // The form starts on the institution; the CRM page has its summary cached already.
  const mi = useQuery({ ...institutionQueries.summary(api, id), enabled: enabled && !compact });
  if (!enabled || list.isPending) return null;
  const records = list.data?.data ?? [];
  const total = list.data?.meta.total_count ?? 0;

  if (compact)
    return (
      <Stack gap={2} data-testid="institution-recent-communications">
        {list.isError ? (
          <Text size="sm">読み込めませんでした</Text>
        ) : records.length === 0 ? (
          <Text size="sm">なし</Text>
        ) : (
          records.map((c) => (
            <Text key={c.id} size="sm" truncate="end">
              {day(c.acted_date)} {communicationTypeLabels[c.communication_type]}
              {c.user ? `（${c.user.name}）` : ''} {firstLine(c)}
            </Text>
          ))
        )}
      </Stack>
    );

  return (
    <Card withBorder padding="md" data-testid="institution-recent-communications">
      <Stack gap="xs">
        <Group justify="space-between" gap="xs">
          <Title order={3} size="h5">
            最近のコミュニケーション（全{total}件）
          </Title>
          <Group gap="sm">
            {mi.data ? (
              <LogCommunicationButton institution={{ id: mi.data.id, name: mi.data.name }} size="xs" variant="light" />
            ) : (
              <Button size="xs" variant="light" disabled>
                活動を記録
              </Button>
            )}
            <AnchorLink to="/crms/$id/communications" params={{ id }} search={timeline} size="sm">
              すべて見る
            </AnchorLink>
          </Group>
        </Group>
        {list.isError ? (
          <Text size="sm" c="red">
            コミュニケーションを読み込めませんでした。
          </Text>
        ) : records.length === 0 ? (
          <Text size="sm" c="dimmed">
            まだ記録がありません。訪問や電話の内容は「活動を記録」から記録できます。
          </Text>
        ) : (
          records.map((c) => (
            <AnchorLink
              key={c.id}
              to="/crms/$id/communications"
              params={{ id }}
              search={timeline}
              hash={communicationAnchor(c.id)}
              underline="never"
              c="inherit"
              data-testid="institution-recent-communication"
            >
              <Stack gap={0} style={{ minWidth: 0 }}>
                <Group gap="xs" wrap="nowrap">
                  <Badge size="sm" variant="light">
                    {communicationTypeLabels[c.communication_type]}
                  </Badge>
                  <Text size="sm" fw={600}>
                    {day(c.acted_date)}
                  </Text>
                  <Text size="xs" c="dimmed" truncate>
                    {c.user?.name ?? ''}
                  </Text>
                </Group>
                <Text size="sm" truncate>
                  {firstLine(c) || '（内容なし）'}
                </Text>
              </Stack>
            </AnchorLink>
          ))
        )}
      </Stack>
    </Card>
  );
}
