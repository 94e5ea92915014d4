import { Group, Text, UnstyledButton } from '@mantine/core';
import { useNavigate } from '@tanstack/react-router';
import type { ReactNode } from 'react';

/**
 * One institution in a map's list (the sales map, the segment map): hovering or focusing it highlights
 * its pin, clicking opens its CRM page. `children`: its figures, in a row under the name.
 */
export function MapListEntry({
  id,
  name,
  highlighted,
  onHover,
  children,
}: {
  id: string;
  name: string;
  highlighted: boolean;
  onHover: (id: string | null) => void;
  children: ReactNode;
}) {
  const navigate = useNavigate();
  return (
    <li>
      <UnstyledButton
        w="100%"
        px="sm"
        py={6}
        data-highlighted={highlighted || undefined}
        bg={highlighted ? 'var(--mantine-color-blue-light)' : undefined}
        onMouseEnter={() => onHover(id)}
        onMouseLeave={() => onHover(null)}
        onFocus={() => onHover(id)}
        onBlur={() => onHover(null)}
        onClick={() => void navigate({ to: '/crms/$id', params: { id } })}
        style={{ borderBottom: '1px solid var(--mantine-color-gray-2)' }}
      >
        <Text size="sm" fw={500} lineClamp={1}>
          {name}
        </Text>
        <Group gap="md">{children}</Group>
      </UnstyledButton>
    </li>
  );
}
