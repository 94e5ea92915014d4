import { Button, Group } from '@mantine/core';

/** The 編集 / 削除 pair at the end of a list row. */
export function EditDeleteButtons({ onEdit, onDelete }: { onEdit: () => void; onDelete: () => void }) {
  return (
    <Group gap="xs" wrap="nowrap">
      <Button size="xs" variant="light" onClick={onEdit}>
        編集
      </Button>
      <Button size="xs" variant="light" color="red" onClick={onDelete}>
        削除
      </Button>
    </Group>
  );
}
