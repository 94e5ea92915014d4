import { Badge, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useServices } from '../../../app/services-context.tsx';
import { currentUserQueries } from '../../current-user/current-user.queries.ts';
import { AnchorLink } from '../../medical-institutions/components/router-links.tsx';
import {
  actionListQueries,
  actionListStatusColors,
  actionListStatusLabels,
  itemStatusColors,
  itemStatusLabels,
} from '../action-lists.queries.ts';

/**
 * The action lists an institution is on, on its CRM page, each with its status there and a link to
 * the list (only where the tenant has the feature).
 */
export function InstitutionActionLists({ institutionId }: { institutionId: string }) {
  const { api } = useServices();
  const user = useQuery(currentUserQueries.detail(api));
  const enabled = user.data?.features.includes('action_lists') === true;
  const lists = useQuery({ ...actionListQueries.ofInstitution(api, institutionId), enabled });
  if (!enabled || !lists.data) return null;
  return (
    <Card withBorder padding="md" data-testid="institution-action-lists">
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={3} size="h5">
            アクションリスト（{lists.data.length}件）
          </Title>
          <AnchorLink to="/action_lists" search={{ page: 1, item_page: 1, status: 'all', id: undefined }} size="sm">
            一覧へ
          </AnchorLink>
        </Group>
        {lists.data.length === 0 ? (
          <Text size="sm" c="dimmed">
            この医療機関が入っているアクションリストはありません。パートナー検索やアクションリスト画面から追加できます。
          </Text>
        ) : (
          lists.data.map((l) => (
            <Group key={l.id} gap="xs" wrap="nowrap" justify="space-between" data-testid="institution-action-list">
              <AnchorLink
                to="/action_lists"
                search={{ page: 1, id: l.id, item_page: 1, status: 'all' }}
                size="sm"
                fw={600}
                truncate
              >
                {l.name}
              </AnchorLink>
              <Group gap={4} wrap="nowrap">
                <Badge size="sm" variant="outline" color={actionListStatusColors[l.status]}>
                  {actionListStatusLabels[l.status]}
                </Badge>
                <Badge size="sm" variant="light" color={itemStatusColors[l.item_status]}>
                  {itemStatusLabels[l.item_status]}
                </Badge>
              </Group>
            </Group>
          ))
        )}
      </Stack>
    </Card>
  );
}
