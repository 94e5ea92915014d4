import { Text, UnstyledButton } from '@mantine/core';
import { EditDeleteButtons } from '../../../ui/EditDeleteButtons.tsx';
import { FlexRender, tableFeatures, useTable, type ColumnDef } from '@tanstack/react-table';
import type { Tag } from '@renkei/contracts';
import { useMemo } from 'react';

const features = tableFeatures({});

export interface TagTableProps {
  tags: Tag[];
  sort: 'asc' | 'desc';
  onToggleSort: () => void;
  onEdit: (tag: Tag) => void;
  onDelete: (tag: Tag) => void;
}

export function TagTable({ tags, sort, onToggleSort, onEdit, onDelete }: TagTableProps) {
  const columns = useMemo<ColumnDef<typeof features, Tag>[]>(
    () => [
      {
        id: 'name',
        accessorKey: 'name',
        header: () => (
          <UnstyledButton
            onClick={onToggleSort}
            fw={600}
            aria-label={`タグ名で並べ替え（現在: ${sort === 'asc' ? '昇順' : '降順'}）`}
            data-testid="sort-by-name"
          >
            タグ名 {sort === 'asc' ? '▲' : '▼'}
          </UnstyledButton>
        ),
      },
      { id: 'description', accessorKey: 'description', header: '説明' },
      { id: 'group_name', accessorFn: (t) => t.group_name ?? '', header: 'グループ' },
      {
        id: 'medical_institution_count',
        accessorKey: 'medical_institution_count',
        header: '医療機関数',
        cell: (info) => `${info.getValue<number>()}件`,
      },
      {
        id: 'actions',
        header: '操作',
        cell: ({ row }) => (
          <EditDeleteButtons onEdit={() => onEdit(row.original)} onDelete={() => onDelete(row.original)} />
        ),
      },
    ],
    [sort, onToggleSort, onEdit, onDelete],
  );
  const table = useTable({ features, columns, data: tags });

  if (tags.length === 0) return <Text c="dimmed">タグはまだありません。</Text>;

  return (
    // A plain table: Mantine's Table brings its ScrollArea (17 KiB) onto the first page.
    <div style={{ overflowX: 'auto' }}>
      <table className="renkei-table" data-testid="tag-table">
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => (
                <th key={header.id}>
                  <FlexRender header={header} />
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.map((row) => (
            <tr key={row.id} data-tag-name={row.original.name}>
              {row.getAllCells().map((cell) => (
                <td key={cell.id}>
                  <FlexRender cell={cell} />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
