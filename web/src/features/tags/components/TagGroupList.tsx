import { Badge, Card, Group, SimpleGrid, Text, Title } from '@mantine/core';
import type { TagGroup } from '@renkei/contracts';

export function TagGroupList({ groups }: { groups: TagGroup[] }) {
  return (
    <section aria-labelledby="tag-groups-title">
      <Title order={3} fz="md" id="tag-groups-title" mb="xs">
        タググループ（{groups.length}件）
      </Title>
      {groups.length === 0 ? (
        <Text c="dimmed" size="sm">
          タググループはまだありません。タグの編集でグループ名を入力すると作成されます。
        </Text>
      ) : (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} data-testid="tag-groups">
          {groups.map((group) => (
            <Card key={group.id} withBorder padding="sm">
              <Group justify="space-between" mb={4}>
                <Text fw={600}>{group.name}</Text>
                <Text size="xs" c="dimmed">
                  {group.tags.length}件
                </Text>
              </Group>
              {group.description && (
                <Text size="xs" c="dimmed" mb={4}>
                  {group.description}
                </Text>
              )}
              <Group gap={4}>
                {group.tags.map((t) => (
                  <Badge key={t.id} variant="light">
                    {t.name}
                  </Badge>
                ))}
              </Group>
            </Card>
          ))}
        </SimpleGrid>
      )}
    </section>
  );
}
