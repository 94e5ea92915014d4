import { Button, Group, Loader, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { formatDistance, slashDate } from '../format-distance.ts';
import { institutionPickerQueries, type PickerPosition } from '../institution-picker.queries.ts';
import { InstitutionPickButton } from './InstitutionPickButton.tsx';

/** What fits a phone's screen below the search; the rest on request. */
const shownAtFirst = 8;

/** Where the master has coordinates (the API refuses a point outside it). */
const inJapan = (p: PickerPosition) => p.latitude >= 20 && p.latitude <= 46 && p.longitude >= 122 && p.longitude <= 154;

/** The institutions around a located position, nearest first, each a button that picks it. */
export function NearbyInstitutionList({
  position,
  onPick,
}: {
  position: PickerPosition;
  onPick: (institution: { id: string; name: string }) => void;
}) {
  const { api } = useServices();
  const near = useQuery({ ...institutionPickerQueries.nearby(api, position), enabled: inJapan(position) });
  const [all, setAll] = useState(false);

  if (!inJapan(position))
    return (
      <Text size="sm" c="red" role="alert">
        現在地が国内ではないため、近くの医療機関を探せません。名称で検索してください
      </Text>
    );
  if (near.isPending)
    return (
      <Group gap="xs" role="status">
        <Loader size="sm" />
        <Text size="sm">近くの医療機関を探しています…</Text>
      </Group>
    );
  if (near.isError)
    return (
      <Group gap="xs" role="alert">
        <Text size="sm" c="red">
          近くの医療機関を読み込めませんでした。
        </Text>
        <Button size="compact-sm" variant="subtle" onClick={() => void near.refetch()}>
          再読み込み
        </Button>
      </Group>
    );
  const found = near.data.data;
  if (found.length === 0)
    return (
      <Text size="sm" role="status">
        現在地から3 km以内に医療機関が見つかりません。名称で検索してください
      </Text>
    );
  const shown = all ? found : found.slice(0, shownAtFirst);
  return (
    <Stack gap="xs" data-testid="nearby-institution-list">
      {shown.map((mi) => (
        <InstitutionPickButton
          key={mi.id}
          name={mi.name}
          address={mi.address}
          detail={`${formatDistance(mi.distance_m)} ・ ${mi.last_visit_date ? `最終訪問 ${slashDate(mi.last_visit_date)}` : '訪問記録なし'}`}
          onClick={() => onPick({ id: mi.id, name: mi.name })}
        />
      ))}
      {shown.length < found.length && (
        <Button variant="subtle" size="md" onClick={() => setAll(true)}>
          さらに{found.length - shown.length}件を表示
        </Button>
      )}
    </Stack>
  );
}
