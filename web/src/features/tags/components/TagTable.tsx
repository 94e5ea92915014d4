import { Text, UnstyledButton } from '@mantine/core';
import type { Tag } from '@renkei/contracts';
import { EditDeleteButtons } from '../../../ui/EditDeleteButtons.tsx';

export interface TagTableProps {
  tags: Tag[];
  sort: 'asc' | 'desc';
  onToggleSort: () => void;
  onEdit: (tag: Tag) => void;
  onDelete: (tag: Tag) => void;
}

/**
 * Five fixed columns, sorted by the server: written out rather than through a table library, which
 * would be 6.5 KiB more on the first page (/tags is where the app lands) for nothing it would do here.
 */
export function TagTable({ tags, sort, onToggleSort, onEdit, onDelete }: TagTableProps) {
  if (tags.length === 0) return <Text c="dimmed">タグはまだありません。</Text>;

  return (
    // A plain table: Mantine's Table brings its ScrollArea (17 KiB) onto the first page.
    <div style={{ overflowX: 'auto' }}>
      <table className="renkei-table" data-testid="tag-table">
        <thead>
          <tr>
            <th aria-sort={sort === 'asc' ? 'ascending' : 'descending'}>
              <UnstyledButton onClick={onToggleSort} fw={600} aria-label="タグ名で並べ替え" data-testid="sort-by-name">
                タグ名 {sort === 'asc' ? '▲' : '▼'}
              </UnstyledButton>
            </th>
            <th>説明</th>
            <th>グループ</th>
            <th>医療機関数</th>
            <th>操作</th>
          </tr>
        </thead>
        <tbody>
          {tags.map((tag) => (
            <tr key={tag.id} data-tag-name={tag.name}>
              <td>{tag.name}</td>
              <td>{tag.description}</td>
              <td>{tag.group_name ?? ''}</td>
              <td>{`${tag.medical_institution_count}件`}</td>
              <td>
                <EditDeleteButtons onEdit={() => onEdit(tag)} onDelete={() => onDelete(tag)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
