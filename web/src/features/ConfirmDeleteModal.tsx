import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/** Asks before deleting a record; the caller closes it when the delete has finished or failed. */
export function ConfirmDeleteModal({
  opened,
  title,
  message,
  pending,
  onClose,
  onConfirm,
  testId,
}: {
  opened: boolean;
  title: string;
  message: ReactNode;
  pending: boolean;
  onClose: () => void;
  onConfirm: () => void;
  /** `data-testid` of the confirming button. */
  testId: string;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title={title} centered>
      <Stack>
        <Text>{message}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            キャンセル
          </Button>
          <Button color="red" loading={pending} onClick={onConfirm} data-testid={testId}>
            削除
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
