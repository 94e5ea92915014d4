import { CheckIcon, Group, Stack, Text } from '@mantine/core';

/**
 * An institution in a dropdown: its name, and its address to tell one of the same name from another.
 * `checked`: a picked option keeps the check mark Mantine draws by default (a renderOption replaces it).
 */
export function InstitutionOption({
  name,
  address,
  checked = false,
}: {
  name: string;
  address?: string | null | undefined;
  checked?: boolean | undefined;
}) {
  return (
    <Group gap={6} wrap="nowrap" align="flex-start">
      {checked && <CheckIcon size={10} style={{ marginTop: 6, flexShrink: 0 }} />}
      <Stack gap={0}>
        <Text size="sm">{name}</Text>
        {address && (
          <Text size="xs" c="dimmed">
            {address}
          </Text>
        )}
      </Stack>
    </Group>
  );
}
