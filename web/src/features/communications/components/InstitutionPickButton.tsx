import { Text, UnstyledButton } from '@mantine/core';

/**
 * One institution to pick with a thumb: the whole card is the button (at least 56 px high), its name
 * first, then what tells two similar names apart.
 */
export function InstitutionPickButton({
  name,
  address,
  detail,
  onClick,
}: {
  name: string;
  address: string;
  detail: string;
  onClick: () => void;
}) {
  return (
    <UnstyledButton
      type="button"
      className="mantine-focus-auto"
      onClick={onClick}
      w="100%"
      px="md"
      py="xs"
      mih={56}
      style={{
        border: '1px solid var(--mantine-color-default-border)',
        borderRadius: 'var(--mantine-radius-md)',
      }}
    >
      <Text fw={600} lineClamp={2}>
        {name}
      </Text>
      <Text size="sm" c="dimmed" lineClamp={1}>
        {detail}
        {address && ` ・ ${address}`}
      </Text>
    </UnstyledButton>
  );
}
