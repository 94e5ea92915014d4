import { Anchor, Group, Text } from '@mantine/core';

export function AppFooter({
  privacyPolicyUrl,
  cookiePolicyUrl,
}: {
  privacyPolicyUrl: string;
  cookiePolicyUrl: string;
}) {
  return (
    <Group justify="space-between" px="md" h="100%" wrap="nowrap">
      <Group gap="md">
        <Anchor href={privacyPolicyUrl} target="_blank" rel="noopener noreferrer" size="xs">
          プライバシーポリシー
        </Anchor>
        <Anchor href={cookiePolicyUrl} target="_blank" rel="noopener noreferrer" size="xs">
          クッキーポリシー
        </Anchor>
      </Group>
      <Text size="xs" c="dimmed">
        © {new Date().getFullYear()} Renkei
      </Text>
    </Group>
  );
}
