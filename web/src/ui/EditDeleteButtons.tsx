import { Button, Group } from '@mantine/core';

/** The 編集 / 削除 pair at the end of a list row; `compact` for rows inside a card. */
export function EditDeleteButtons({
  onEdit,
  onDelete,
  compact = false,
  subject,
}: {
  onEdit: () => void;
  onDelete: () => void;
  compact?: boolean;
  /** What the pair acts on (`コメント`), named to assistive tech where several pairs share a card. */
  subject?: string;
}) {
  const size = compact ? 'compact-xs' : 'xs';
  const variant = compact ? 'subtle' : 'light';
  return (
    <Group gap={compact ? 4 : 'xs'} wrap="nowrap">
      <Button size={size} variant={variant} onClick={onEdit} aria-label={subject && `${subject}を編集`}>
        編集
      </Button>
      <Button size={size} variant={variant} color="red" onClick={onDelete} aria-label={subject && `${subject}を削除`}>
        削除
      </Button>
    </Group>
  );
}
