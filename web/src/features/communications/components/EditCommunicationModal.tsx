import { Modal } from '@mantine/core';
import type { Communication } from '@renkei/contracts';
import { lazy, Suspense, useCallback, useRef, useState } from 'react';
import { useViewport } from '../../../frame/use-viewport.ts';
import { DiscardChangesModal } from './DiscardChangesModal.tsx';

// The form loads when first opened, not with the timeline that offers it.
const CommunicationEditForm = lazy(() =>
  import('./CommunicationEditForm.tsx').then((m) => ({ default: m.CommunicationEditForm })),
);

/**
 * The timeline's 「編集」 dialog (full screen on a phone). Closing it over changes not saved yet — the ×,
 * Escape, キャンセル, a save that failed without a network — asks first: an edit typed in a car park is
 * not thrown away by one stray tap.
 */
export function EditCommunicationModal({
  communication,
  onClose,
}: {
  communication: Communication | null;
  onClose: () => void;
}) {
  const phone = useViewport() === 'phone';
  const dirty = useRef(false);
  const [asking, setAsking] = useState(false);
  const close = () => {
    dirty.current = false;
    setAsking(false);
    onClose();
  };
  const requestClose = () => (dirty.current ? setAsking(true) : close());
  const onDirtyChange = useCallback((d: boolean) => {
    dirty.current = d;
  }, []);
  return (
    <>
      <Modal
        opened={communication !== null}
        onClose={requestClose}
        fullScreen={phone}
        size="lg"
        title="活動記録の編集"
        withCloseButton
        closeButtonProps={{ 'aria-label': '閉じる' }}
      >
        <Suspense fallback={null}>
          {communication && (
            <CommunicationEditForm
              key={communication.id}
              communication={communication}
              onSaved={close}
              onCancel={requestClose}
              onDirtyChange={onDirtyChange}
            />
          )}
        </Suspense>
      </Modal>
      <DiscardChangesModal opened={asking} onKeep={() => setAsking(false)} onDiscard={close} />
    </>
  );
}
