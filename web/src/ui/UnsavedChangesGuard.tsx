import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useBlocker } from '@tanstack/react-router';
import { useRef } from 'react';

/**
 * Asks before leaving a form with changes not saved: a link in the app opens this dialog, a reload or a closed
 * tab the browser's own question. `isDirty` is called at the moment of leaving, so it may read refs: a form
 * that navigates right after saving (a new record's first save) is not held by a stale render.
 */
export function UnsavedChangesGuard({
  isDirty,
  description,
}: {
  isDirty: () => boolean;
  /** What is lost, in the dialog: 「このページを離れると、…は失われます。」 */
  description: string;
}) {
  const latest = useRef(isDirty);
  latest.current = isDirty;
  const blocker = useBlocker({
    shouldBlockFn: () => latest.current(),
    enableBeforeUnload: () => latest.current(),
    withResolver: true,
  });
  return (
    <Modal
      opened={blocker.status === 'blocked'}
      onClose={() => blocker.reset?.()}
      title="保存していない変更があります"
      centered
    >
      <Stack>
        <Text size="sm">{description}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => blocker.reset?.()} data-autofocus>
            このページに戻る
          </Button>
          <Button color="red" onClick={() => blocker.proceed?.()}>
            保存せずに移動
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
