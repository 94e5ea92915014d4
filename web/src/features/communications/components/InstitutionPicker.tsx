import { Button, Group, Loader, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useServices } from '../../../app/services-context.tsx';
import { InstitutionPicker as NamedInstitutionPicker } from '../../../ui/InstitutionPicker.tsx';
import { slashDate } from '../format-distance.ts';
import { institutionPickerQueries } from '../institution-picker.queries.ts';
import { useCurrentPosition } from '../use-current-position.ts';
import { InstitutionPickButton } from './InstitutionPickButton.tsx';
import { NearbyInstitutionList } from './NearbyInstitutionList.tsx';

/** A phone shows this many without scrolling past the form's first fields. */
const recentShown = 6;

/**
 * Choosing the institution of a new record, three ways: by typed name (the partner search's
 * normalisation: 全角/半角, かな/カナ), from the caller's recent ones, or from those around the phone.
 * The position is asked only when the user presses the button.
 */
export function InstitutionPicker({
  onPick,
  error,
}: {
  onPick: (institution: { id: string; name: string }) => void;
  error?: string | undefined;
}) {
  const { api } = useServices();
  const recent = useQuery(institutionPickerQueries.recent(api));
  const [location, locate] = useCurrentPosition();

  return (
    <Stack gap="md">
      <NamedInstitutionPicker value={null} onChange={(picked) => picked && onPick(picked)} error={error} size="md" />

      <Stack gap="xs" data-testid="recent-institutions">
        <Text component="h3" fw={600} size="sm" m={0}>
          最近の医療機関
        </Text>
        {recent.isPending ? (
          <Group gap="xs" role="status">
            <Loader size="sm" />
            <Text size="sm">読み込んでいます…</Text>
          </Group>
        ) : recent.isError ? (
          <Text size="sm" c="red" role="alert">
            最近の医療機関を読み込めませんでした。名称で検索してください
          </Text>
        ) : recent.data.data.length === 0 ? (
          <Text size="sm" c="dimmed">
            まだ活動の記録がありません。上の欄に医療機関の名称を入力して探してください
          </Text>
        ) : (
          recent.data.data
            .slice(0, recentShown)
            .map((mi) => (
              <InstitutionPickButton
                key={mi.id}
                name={mi.name}
                address={mi.address}
                detail={`最終記録 ${slashDate(mi.last_acted_date)}`}
                onClick={() => onPick({ id: mi.id, name: mi.name })}
              />
            ))
        )}
      </Stack>

      <Stack gap="xs" data-testid="nearby-institutions">
        <Text component="h3" fw={600} size="sm" m={0}>
          近くの医療機関
        </Text>
        <Button variant="light" size="md" fullWidth onClick={locate} disabled={location.status === 'locating'}>
          現在地の近くを探す
        </Button>
        {location.status === 'locating' && (
          <Group gap="xs" role="status">
            <Loader size="sm" />
            <Text size="sm">現在地を確認しています…</Text>
          </Group>
        )}
        {location.status === 'denied' && (
          <Text size="sm" c="red" role="alert">
            位置情報が使えません。端末の設定で許可するか、名称で検索してください
          </Text>
        )}
        {location.status === 'unavailable' && (
          <Text size="sm" c="red" role="alert">
            現在地を取得できませんでした。少し待ってからもう一度押すか、名称で検索してください
          </Text>
        )}
        {location.status === 'located' && <NearbyInstitutionList position={location.position} onPick={onPick} />}
      </Stack>
    </Stack>
  );
}
