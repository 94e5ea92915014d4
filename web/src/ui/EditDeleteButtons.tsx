import { Button, Group } from '@mantine/core';

/** The 編集 / 削除 pair at the end of a list row; `compact` for rows inside a card. */
export function EditDeleteButtons({
  onEdit,
  onDelete,
  compact = false,
}: {
  onEdit: () => void;
  onDelete: () => void;
  compact?: boolean;
}) {
  const size = compact ? 'compact-xs' : 'xs';
  const variant = compact ? 'subtle' : 'light';
  return (
    <Group gap={compact ? 4 : 'xs'} wrap="nowrap">
      <Button size={size} variant={variant} onClick={onEdit}>
        編集
      </Button>
      <Button size={size} variant={variant} color="red" onClick={onDelete}>
        削除
      </Button>
    </Group>
  );
}
