import { Loader, Overlay, Stack, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import { spinnerSize } from '../app/theme.ts';

/** Spec §9: the message only appears after 3 s, so short waits show just the spinner. */
const overlayMessageDelayMs = 3000;

export function FullScreenLoading({ message = '読み込み中です' }: { message?: string }) {
  const [showMessage, setShowMessage] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setShowMessage(true), overlayMessageDelayMs);
    return () => clearTimeout(timer);
  }, []);
  return (
    <Overlay fixed center zIndex={1000} backgroundOpacity={0.85} color="#fff" data-testid="loading-overlay">
      <Stack align="center" gap="sm">
        <Loader size={spinnerSize.medium} aria-label="読み込み中" />
        {showMessage && <Text>{message}</Text>}
      </Stack>
    </Overlay>
  );
}
