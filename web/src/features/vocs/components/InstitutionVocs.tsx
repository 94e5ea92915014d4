import { Badge, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useServices } from '../../../app/services-context.tsx';
import { currentUserQueries } from '../../current-user/current-user.queries.ts';
import { AnchorLink } from '../../medical-institutions/components/router-links.tsx';
import { vocPriorityColors, vocPriorityLabels, vocQueries, vocStatusColors, vocStatusLabels } from '../vocs.queries.ts';

/** The institution's latest partner feedback on its CRM page (only where the tenant has the feature). */
export function InstitutionVocs({ institutionId }: { institutionId: string }) {
  const { api } = useServices();
  const user = useQuery(currentUserQueries.detail(api));
  const enabled = user.data?.features.includes('communications') === true;
  const vocs = useQuery({
    ...vocQueries.list(api, { page: 1, per_page: 5, medical_institution_id: institutionId }),
    enabled,
  });
  if (!enabled || !vocs.data) return null;
  return (
    <Card withBorder padding="md" data-testid="institution-vocs">
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={3} size="h5">
            連携先の声
          </Title>
          {vocs.data.meta.total_count > 0 && (
            <AnchorLink to="/vocs" search={{ page: 1, institution: institutionId }} size="sm">
              すべて見る（{vocs.data.meta.total_count}件）
            </AnchorLink>
          )}
        </Group>
        {vocs.data.data.length === 0 ? (
          <Text size="sm" c="dimmed">
            まだありません。活動の記録から登録できます。
          </Text>
        ) : (
          vocs.data.data.map((v) => (
            <Group key={v.id} gap="xs" wrap="nowrap" justify="space-between">
              <Stack gap={0} style={{ minWidth: 0 }}>
                <Text size="sm" fw={600} truncate>
                  {v.title}
                </Text>
                <Text size="xs" c="dimmed">
                  {v.reported_date.replaceAll('-', '/')}
                  {v.voc_group ? ` ・ ${v.voc_group.name}` : ''}
                </Text>
              </Stack>
              <Group gap={4} wrap="nowrap">
                <Badge size="sm" variant="outline" color={vocPriorityColors[v.priority]}>
                  {vocPriorityLabels[v.priority]}
                </Badge>
                <Badge size="sm" variant="light" color={vocStatusColors[v.status]}>
                  {vocStatusLabels[v.status]}
                </Badge>
              </Group>
            </Group>
          ))
        )}
      </Stack>
    </Card>
  );
}
