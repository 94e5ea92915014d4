import { Badge, Card, Group, Stack, Text, Title } from '@mantine/core';
import { AnchorLink } from '../../medical-institutions/components/router-links.tsx';
import { useOpenVocs } from '../open-vocs.ts';
import { vocPriorityColors, vocPriorityLabels, vocStatusColors, vocStatusLabels } from '../vocs.queries.ts';

/**
 * The institution's open partner feedback (not started, in progress) on its CRM page, most urgent
 * first (only where the tenant has the feature); the whole history is one click away on /vocs.
 */
export function InstitutionVocs({ institutionId }: { institutionId: string }) {
  const open = useOpenVocs(institutionId, 5);
  if (!open) return null;
  const shown = open.items.slice(0, 5);
  return (
    <Card withBorder padding="md" data-testid="institution-vocs">
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={3} size="h5">
            連携先の声（未対応・対応中 {open.total}件）
          </Title>
          <AnchorLink to="/vocs" search={{ page: 1, institution: institutionId }} size="sm">
            すべて見る
          </AnchorLink>
        </Group>
        {shown.length === 0 ? (
          <Text size="sm" c="dimmed">
            対応が必要な声はありません。活動の記録から登録できます。
          </Text>
        ) : (
          shown.map((v) => (
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
