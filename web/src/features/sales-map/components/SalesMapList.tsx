import { Stack, Text } from '@mantine/core';
import type { SalesMapMedicalInstitution } from '@renkei/contracts';
import { MapListEntry } from './MapListEntry.tsx';

export interface SalesMapListProps {
  rows: readonly SalesMapMedicalInstitution[];
  highlightedId: string | null;
  onHover: (id: string | null) => void;
}

/** The current page beside the map; hovering an entry highlights its pin, clicking opens its CRM page. */
export function SalesMapList({ rows, highlightedId, onHover }: SalesMapListProps) {
  if (rows.length === 0)
    return (
      <Text c="dimmed" size="sm" p="sm">
        条件に合う医療機関がありません
      </Text>
    );
  return (
    <Stack gap={0} component="ul" aria-label="医療機関一覧" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
      {rows.map((r) => (
        <MapListEntry key={r.id} id={r.id} name={r.name} highlighted={r.id === highlightedId} onHover={onHover}>
          <Text size="xs" c="dimmed">
            紹介 {r.referral_count ?? 0}件
          </Text>
          <Text size="xs" c="dimmed">
            最終訪問 {r.last_visit_date?.replaceAll('-', '/') ?? '—'}
          </Text>
        </MapListEntry>
      ))}
    </Stack>
  );
}
