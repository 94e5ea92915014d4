import { Button, Group, Modal, Stack, Text } from '@mantine/core';

/**
 * Asked when a form with changes not saved yet is being closed (×, Escape, キャンセル): on a phone a
 * stray tap must not throw away what was typed. 「編集を続ける」 keeps the form as it is.
 */
export function DiscardChangesModal({
  opened,
  onKeep,
  onDiscard,
}: {
  opened: boolean;
  onKeep: () => void;
  onDiscard: () => void;
}) {
  return (
    <Modal opened={opened} onClose={onKeep} title="編集の破棄" centered>
      <Stack>
        <Text>保存していない変更があります。変更を破棄して閉じますか？</Text>
        <Group justify="flex-end">
          <Button variant="default" size="md" onClick={onKeep}>
            編集を続ける
          </Button>
          <Button color="red" size="md" onClick={onDiscard} data-testid="confirm-discard-edit">
            破棄して閉じる
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
