import { Button, Group, Paper, Stack, Text, Timeline, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { MedicalInstitutionHistory } from '@renkei/contracts';
import { useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { formatDateTime } from '../../../app/dates.ts';
import { institutionQueries } from '../../medical-institutions/medical-institutions.queries.ts';

const kindColor: Record<MedicalInstitutionHistory['kind'], string> = {
  memo_changed: 'blue',
  special_note_changed: 'indigo',
  phase_changed: 'grape',
  tags_changed: 'teal',
  doctor_added: 'green',
  doctor_changed: 'green',
  doctor_removed: 'red',
  label_values_changed: 'orange',
};

function clip(text: string | null): string {
  if (!text) return '（なし）';
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/** Every change this tenant made to the institution, newest first, read from the events. */
export function HistoryTimeline({ institutionId }: { institutionId: string }) {
  const { api } = useServices();
  const [page, setPage] = useState(1);
  const { data, isLoading, isError } = useQuery(institutionQueries.histories(api, institutionId, page));

  return (
    <Paper withBorder p="md" data-testid="history-timeline">
      <Stack gap="sm">
        <Title order={3} fz="md">
          変更履歴
        </Title>
        {isLoading && <Text size="sm">読み込み中…</Text>}
        {isError && (
          <Text size="sm" c="red">
            変更履歴を読み込めませんでした。
          </Text>
        )}
        {data && data.data.length === 0 && (
          <Text size="sm" c="dimmed">
            まだ変更はありません。メモ・タグ・医師などを編集すると、ここに誰がいつ何を変えたかが残ります。
          </Text>
        )}
        {data && data.data.length > 0 && (
          <Timeline bulletSize={14} lineWidth={2} active={data.data.length - 1}>
            {data.data.map((h) => (
              <Timeline.Item
                key={h.id}
                color={kindColor[h.kind]}
                title={
                  <Text size="sm" fw={600}>
                    {h.summary}
                  </Text>
                }
                data-testid="history-item"
              >
                <Text size="xs" c="dimmed">
                  {h.user?.name ?? '不明なユーザー'}・{formatDateTime(h.occurred_at)}
                </Text>
                {h.changes.map((c, i) => (
                  <Text key={i} size="xs">
                    {c.label}: {clip(c.before)} → {clip(c.after)}
                  </Text>
                ))}
              </Timeline.Item>
            ))}
          </Timeline>
        )}
        {data && data.meta.total_pages > 1 && (
          <Group justify="space-between">
            <Button size="xs" variant="default" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>
              新しい履歴
            </Button>
            <Text size="xs" c="dimmed">
              {page} / {data.meta.total_pages}
            </Text>
            <Button
              size="xs"
              variant="default"
              disabled={page >= data.meta.total_pages}
              onClick={() => setPage((p) => p + 1)}
            >
              古い履歴
            </Button>
          </Group>
        )}
      </Stack>
    </Paper>
  );
}
