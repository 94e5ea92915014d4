import { Group, Stack, Text, UnstyledButton } from '@mantine/core';
import { useNavigate } from '@tanstack/react-router';
import type { SalesMapMedicalInstitution } from '@renkei/contracts';

export interface SalesMapListProps {
  rows: readonly SalesMapMedicalInstitution[];
  highlightedId: string | null;
  onHover: (id: string | null) => void;
}

/** The current page beside the map; hovering an entry highlights its pin, clicking opens its CRM page. */
export function SalesMapList({ rows, highlightedId, onHover }: SalesMapListProps) {
  const navigate = useNavigate();
  if (rows.length === 0)
    return (
      <Text c="dimmed" size="sm" p="sm">
        条件に合う医療機関がありません
      </Text>
    );
  return (
    <Stack gap={0} component="ul" aria-label="医療機関一覧" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
      {rows.map((r) => (
        <li key={r.id}>
          <UnstyledButton
            w="100%"
            px="sm"
            py={6}
            data-highlighted={r.id === highlightedId || undefined}
            bg={r.id === highlightedId ? 'var(--mantine-color-blue-light)' : undefined}
            onMouseEnter={() => onHover(r.id)}
            onMouseLeave={() => onHover(null)}
            onFocus={() => onHover(r.id)}
            onBlur={() => onHover(null)}
            onClick={() => void navigate({ to: '/crms/$id', params: { id: r.id } })}
            style={{ borderBottom: '1px solid var(--mantine-color-gray-2)' }}
          >
            <Text size="sm" fw={500} lineClamp={1}>
              {r.name}
            </Text>
            <Group gap="md">
              <Text size="xs" c="dimmed">
                紹介 {r.referral_count ?? 0}件
              </Text>
              <Text size="xs" c="dimmed">
                最終訪問 {r.last_visit_date ?? '—'}
              </Text>
            </Group>
          </UnstyledButton>
        </li>
      ))}
    </Stack>
  );
}
