import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { useReturnFocus } from './useReturnFocus.ts';

/** Asks before deleting a record; the caller closes it when the delete has finished or failed. */
export function ConfirmDeleteModal({
  opened,
  title,
  message,
  detail,
  confirmLabel = '削除',
  pending,
  onClose,
  onConfirm,
  testId,
}: {
  opened: boolean;
  title: string;
  message: ReactNode;
  /** A quieter line under the question, such as what else the delete takes with it. */
  detail?: ReactNode;
  confirmLabel?: string;
  pending: boolean;
  onClose: () => void;
  onConfirm: () => void;
  /** `data-testid` of the confirming button. */
  testId?: string;
}) {
  useReturnFocus(opened);
  return (
    <Modal opened={opened} onClose={onClose} title={title} centered>
      <Stack>
        <Stack gap="xs">
          <Text>{message}</Text>
          {detail && (
            <Text size="sm" c="dimmed">
              {detail}
            </Text>
          )}
        </Stack>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            キャンセル
          </Button>
          <Button color="red" loading={pending} onClick={onConfirm} data-testid={testId}>
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
