import { Badge, Stack, Text } from '@mantine/core';
import type { VocListItem } from '@renkei/contracts';
import { EditDeleteButtons } from '../../../ui/EditDeleteButtons.tsx';
import { communicationTypeLabels } from '../../communications/communications.queries.ts';
import { communicationAnchor } from '../../communications/communication-anchor.ts';
import { AnchorLink } from '../../medical-institutions/components/router-links.tsx';
import { vocPriorityColors, vocPriorityLabels, vocStatusColors, vocStatusLabels } from '../vocs.queries.ts';

const formatDay = (day: string) => day.replaceAll('-', '/');

export function VocTable({
  vocs,
  onEdit,
  onDelete,
}: {
  vocs: VocListItem[];
  onEdit: (voc: VocListItem) => void;
  onDelete: (voc: VocListItem) => void;
}) {
  if (vocs.length === 0)
    return (
      <Text c="dimmed" py="xl" ta="center">
        条件に合うVOCはありません。
      </Text>
    );
  return (
    // A plain table, as the other lists: Mantine's Table brings its ScrollArea onto the page.
    <div style={{ overflowX: 'auto' }}>
      <table className="renkei-table" data-testid="voc-table">
        <thead>
          <tr style={{ whiteSpace: 'nowrap' }}>
            <th>報告日</th>
            <th>タイトル</th>
            <th>医療機関</th>
            <th>ステータス</th>
            <th>優先度</th>
            <th>グループ</th>
            <th>担当者</th>
            <th>活動記録</th>
            <th data-print-hide>操作</th>
          </tr>
        </thead>
        <tbody>
          {vocs.map((v) => (
            <tr key={v.id} data-testid="voc-row">
              <td style={{ whiteSpace: 'nowrap' }}>{formatDay(v.reported_date)}</td>
              <td>
                <Text fw={600} size="sm">
                  {v.title}
                </Text>
                {v.detail_text && (
                  <Text size="xs" c="dimmed" lineClamp={2}>
                    {v.detail_text}
                  </Text>
                )}
              </td>
              <td>
                <AnchorLink to="/crms/$id" params={{ id: v.medical_institution.id }} size="sm">
                  {v.medical_institution.name}
                </AnchorLink>
              </td>
              <td style={{ whiteSpace: 'nowrap' }}>
                <Badge color={vocStatusColors[v.status]} variant="light">
                  {vocStatusLabels[v.status]}
                </Badge>
              </td>
              <td style={{ whiteSpace: 'nowrap' }}>
                <Badge color={vocPriorityColors[v.priority]} variant="outline">
                  {vocPriorityLabels[v.priority]}
                </Badge>
              </td>
              <td style={{ whiteSpace: 'nowrap' }}>{v.voc_group?.name ?? ''}</td>
              <td style={{ whiteSpace: 'nowrap' }}>{v.user?.name ?? ''}</td>
              <td>
                <Stack gap={0}>
                  {v.communications.map((c) => (
                    <AnchorLink
                      key={c.id}
                      to="/crms/$id/communications"
                      params={{ id: v.medical_institution.id }}
                      // The record's own day, so it is on the first page however old it is, and its anchor
                      // (as the CRM page's recent communications link), so it is scrolled into view.
                      search={{ page: 1, sort: 'desc', from: c.acted_date, to: c.acted_date }}
                      hash={communicationAnchor(c.id)}
                      size="sm"
                      style={{ whiteSpace: 'nowrap' }}
                    >
                      {formatDay(c.acted_date)} {communicationTypeLabels[c.communication_type]}
                    </AnchorLink>
                  ))}
                </Stack>
              </td>
              <td data-print-hide>
                <EditDeleteButtons onEdit={() => onEdit(v)} onDelete={() => onDelete(v)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
