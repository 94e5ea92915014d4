import { Badge, Button, Group, Progress, Text, UnstyledButton } from '@mantine/core';
import type { ActionList } from '@renkei/contracts';
import { formatDate } from '../../../app/dates.ts';
import { EditDeleteButtons } from '../../../ui/EditDeleteButtons.tsx';
import { actionListStatusColors, actionListStatusLabels } from '../action-lists.queries.ts';

const percent = (l: ActionList) =>
  l.medical_institution_count === 0 ? 0 : Math.round((l.actioned_count / l.medical_institution_count) * 100);

/** The tenant's lists; the selected one is highlighted and its institutions shown below. */
export function ActionListTable({
  lists,
  selectedId,
  onSelect,
  onRename,
  onDelete,
  onToggleStatus,
}: {
  lists: ActionList[];
  selectedId: string | undefined;
  onSelect: (list: ActionList) => void;
  onRename: (list: ActionList) => void;
  onDelete: (list: ActionList) => void;
  onToggleStatus: (list: ActionList) => void;
}) {
  return (
    // A plain table, as the other lists: Mantine's Table brings its ScrollArea onto the page.
    <div style={{ overflowX: 'auto' }}>
      <table className="renkei-table" data-testid="action-list-table">
        <thead>
          <tr style={{ whiteSpace: 'nowrap' }}>
            <th>アクションリスト名</th>
            <th>ステータス</th>
            <th style={{ textAlign: 'right' }}>件数</th>
            <th>対応済み件数</th>
            <th>作成者</th>
            <th>作成日</th>
            <th data-print-hide>操作</th>
          </tr>
        </thead>
        <tbody>
          {lists.map((l) => {
            const selected = l.id === selectedId;
            return (
              <tr
                key={l.id}
                data-testid="action-list-row"
                aria-selected={selected}
                style={selected ? { background: 'var(--mantine-color-blue-light)' } : undefined}
              >
                <td>
                  <UnstyledButton
                    onClick={() => onSelect(l)}
                    aria-label={`${l.name}の医療機関を表示`}
                    aria-current={selected ? 'true' : undefined}
                  >
                    <Text fw={600} size="sm" c="blue" td={selected ? undefined : 'underline'}>
                      {l.name}
                    </Text>
                  </UnstyledButton>
                </td>
                <td>
                  <Badge variant="light" color={actionListStatusColors[l.status]} data-testid="action-list-status">
                    {actionListStatusLabels[l.status]}
                  </Badge>
                </td>
                <td style={{ textAlign: 'right' }} data-testid="action-list-count">
                  {l.medical_institution_count.toLocaleString('ja-JP')}
                </td>
                <td style={{ minWidth: 140 }}>
                  <Group gap="xs" wrap="nowrap">
                    <Text size="sm" data-testid="action-list-actioned">
                      {l.actioned_count.toLocaleString('ja-JP')}
                    </Text>
                    <Progress
                      value={percent(l)}
                      w={80}
                      color={actionListStatusColors.completed}
                      aria-label={`${l.name}の対応率 ${percent(l)}%`}
                    />
                    <Text size="xs" c="dimmed">
                      {percent(l)}%
                    </Text>
                  </Group>
                </td>
                <td>{l.created_by?.name ?? ''}</td>
                <td style={{ whiteSpace: 'nowrap' }}>{formatDate(l.created_at)}</td>
                <td data-print-hide>
                  <Group gap="xs" wrap="nowrap">
                    <Button size="xs" variant="default" onClick={() => onToggleStatus(l)}>
                      {l.status === 'completed' ? '対応中に戻す' : '完了にする'}
                    </Button>
                    <EditDeleteButtons onEdit={() => onRename(l)} onDelete={() => onDelete(l)} subject={l.name} />
                  </Group>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
