import { Stack, Text, Title } from '@mantine/core';
import type { FeatureKey } from '@renkei/contracts/client';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { formatDateTime } from '../../../app/dates.ts';
import { useServices } from '../../../app/services-context.tsx';
import { tenantSettingQueries } from '../tenant-settings.queries.ts';
import { featureLabels, settingLabels } from '../tenant-setting-labels.ts';
import { ListPagination } from '../../../ui/ListPagination.tsx';

const shown = (value: string) => (value === 'true' ? 'オン' : value === 'false' ? 'オフ' : value || '（なし）');

/** Switched-off features are stored by key; the history names them as the checkboxes do. */
const shownAs = (field: string, value: string) =>
  field === 'feature_overrides' && value
    ? value
        .split(', ')
        .map((key) => featureLabels[key as FeatureKey] ?? key)
        .join('、')
    : shown(value);

export function TenantSettingHistory() {
  const { api } = useServices();
  const [page, setPage] = useState(1);
  const { data } = useQuery(tenantSettingQueries.histories(api, page));

  return (
    <Stack gap="xs">
      <Title order={3} fz="lg">
        変更履歴
      </Title>
      {data && data.data.length === 0 && <Text c="dimmed">まだ変更はありません。</Text>}
      {data && data.data.length > 0 && (
        <div style={{ overflowX: 'auto' }}>
          <table className="renkei-table" data-testid="tenant-setting-history">
            <thead>
              <tr>
                <th>日時</th>
                <th>変更者</th>
                <th>項目</th>
                <th>変更前</th>
                <th>変更後</th>
              </tr>
            </thead>
            <tbody>
              {data.data.flatMap((entry, i) =>
                entry.changes.map((change, j) => (
                  <tr key={`${i}-${change.field}`}>
                    <td>{j === 0 ? formatDateTime(entry.changed_at) : ''}</td>
                    <td>{j === 0 ? (entry.changed_by ?? '（システム）') : ''}</td>
                    <td>{settingLabels[change.field] ?? change.field}</td>
                    <td>{shownAs(change.field, change.before)}</td>
                    <td>{shownAs(change.field, change.after)}</td>
                  </tr>
                )),
              )}
            </tbody>
          </table>
        </div>
      )}
      <ListPagination totalPages={data?.meta.total_pages} value={page} onChange={setPage} aria-label="ページ" />
    </Stack>
  );
}
