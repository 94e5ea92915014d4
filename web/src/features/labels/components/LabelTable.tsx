import { Badge, Group, Table, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { EditDeleteButtons } from '../../../ui/EditDeleteButtons.tsx';
import { ReorderButtons } from '../../../ui/ReorderButtons.tsx';
import { componentTypeLabel } from '../label-values.ts';

interface TableLabel {
  id: string;
  name: string;
  component_type: keyof typeof componentTypeLabel;
  description: string;
}

/** The ids in their new order after moving the one at `from` to `to`. */
function movedIds(ids: readonly string[], from: number, to: number): string[] {
  const next = [...ids];
  const [id] = next.splice(from, 1);
  next.splice(to, 0, id!);
  return next;
}

/**
 * The labels of a panel (institution labels, or one communication type's labels) in their order:
 * name, input type, choices, description, and for owners ↑↓ and edit/delete. `onReorder` gets the
 * shown labels' ids in their new order; the panel saves it the way its API takes it.
 */
export function LabelTable<L extends TableLabel>({
  labels,
  canEdit,
  detailHeader,
  detailOf,
  badgesOf,
  reordering,
  onReorder,
  onEdit,
  onDelete,
  testId,
}: {
  labels: readonly L[];
  canEdit: boolean;
  detailHeader: string;
  detailOf: (label: L) => string;
  /** Shown after the name (e.g. 必須). */
  badgesOf?: (label: L) => ReactNode;
  reordering: boolean;
  onReorder: (ids: string[]) => void;
  onEdit: (label: L) => void;
  onDelete: (label: L) => void;
  testId: string;
}) {
  return (
    <Table.ScrollContainer minWidth={720}>
      <Table striped data-testid={testId}>
        <Table.Thead>
          <Table.Tr>
            {canEdit && <Table.Th w={90}>並び順</Table.Th>}
            <Table.Th>ラベル名</Table.Th>
            <Table.Th>入力形式</Table.Th>
            <Table.Th>{detailHeader}</Table.Th>
            <Table.Th>説明</Table.Th>
            {canEdit && <Table.Th w={140}>操作</Table.Th>}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {labels.map((l, i) => (
            <Table.Tr key={l.id} data-label-name={l.name}>
              {canEdit && (
                <Table.Td>
                  <ReorderButtons
                    name={l.name}
                    index={i}
                    count={labels.length}
                    disabled={reordering}
                    onMove={(from, to) =>
                      onReorder(
                        movedIds(
                          labels.map((x) => x.id),
                          from,
                          to,
                        ),
                      )
                    }
                  />
                </Table.Td>
              )}
              <Table.Td fw={600}>
                {badgesOf ? (
                  <Group gap={6}>
                    {l.name}
                    {badgesOf(l)}
                  </Group>
                ) : (
                  l.name
                )}
              </Table.Td>
              <Table.Td>
                <Badge variant="light" size="sm">
                  {componentTypeLabel[l.component_type]}
                </Badge>
              </Table.Td>
              <Table.Td>
                <Text size="xs" lineClamp={2}>
                  {detailOf(l)}
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="xs" lineClamp={2}>
                  {l.description}
                </Text>
              </Table.Td>
              {canEdit && (
                <Table.Td>
                  <EditDeleteButtons onEdit={() => onEdit(l)} onDelete={() => onDelete(l)} />
                </Table.Td>
              )}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
