import { Modal } from '@mantine/core';
import { lazy, Suspense } from 'react';
import { useViewport } from '../../../frame/use-viewport.ts';

// The form loads when first opened, not with the page that offers it.
const CommunicationForm = lazy(() => import('./CommunicationForm.tsx').then((m) => ({ default: m.CommunicationForm })));

/**
 * 「活動を記録」: the new-record form in place (full screen on a phone), so a contact is logged without
 * leaving the page; with an institution, the form starts on it.
 */
export function LogCommunicationModal({
  opened,
  onClose,
  institution,
}: {
  opened: boolean;
  onClose: () => void;
  institution: { id: string; name: string } | null;
}) {
  const phone = useViewport() === 'phone';
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      fullScreen={phone}
      size="lg"
      title="活動の記録"
      withCloseButton
      // Without a name a screen reader announces a bare "button"; the draft is kept, so closing loses nothing.
      closeButtonProps={{ 'aria-label': '閉じる' }}
    >
      <Suspense fallback={null}>{opened && <CommunicationForm institution={institution} onSaved={onClose} />}</Suspense>
    </Modal>
  );
}
