import { Stack, Text } from '@mantine/core';

/** An institution in a dropdown: its name, and its address to tell one of the same name from another. */
export function InstitutionOption({ name, address }: { name: string; address?: string | null | undefined }) {
  return (
    <Stack gap={0}>
      <Text size="sm">{name}</Text>
      {address && (
        <Text size="xs" c="dimmed">
          {address}
        </Text>
      )}
    </Stack>
  );
}
