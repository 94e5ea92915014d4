import { Button, Group, Modal, Text } from '@mantine/core';
import type { Tag } from '@renkei/contracts';
import { useState } from 'react';

export function DeleteTagModal({
  tag,
  onClose,
  onConfirm,
}: {
  tag: Tag | null;
  onClose: () => void;
  onConfirm: (tag: Tag) => Promise<unknown>;
}) {
  const [deleting, setDeleting] = useState(false);
  const confirm = async () => {
    if (!tag) return;
    setDeleting(true);
    try {
      await onConfirm(tag);
    } catch {
      // The caller reports the failure.
    } finally {
      setDeleting(false);
    }
  };
  return (
    <Modal opened={tag !== null} onClose={onClose} title="タグを削除" centered>
      <Text>タグ「{tag?.name}」を削除しますか？</Text>
      {tag && tag.medical_institution_count > 0 && (
        <Text size="sm" c="dimmed" mt="xs">
          このタグが付いている{tag.medical_institution_count}件の医療機関からも外れます。
        </Text>
      )}
      <Group justify="flex-end" mt="md">
        <Button variant="default" onClick={onClose}>
          キャンセル
        </Button>
        <Button color="red" loading={deleting} onClick={() => void confirm()}>
          削除する
        </Button>
      </Group>
    </Modal>
  );
}
