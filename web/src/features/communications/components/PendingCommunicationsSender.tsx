import { Affix, Badge, getDefaultZIndex } from '@mantine/core';
import { usePendingCommunicationsSender } from '../usePendingCommunicationsSender.ts';

/**
 * Mounted once in the signed-in frame: sends records kept on the device while offline (whether or not
 * a form is open) and, while any are kept, shows how many above the footer.
 */
export function PendingCommunicationsSender({ accountId, retryMs }: { accountId: string; retryMs?: number }) {
  const kept = usePendingCommunicationsSender(accountId, retryMs);
  return (
    // Under dialogs: a phone's full-screen form covered its 記録する with this badge, and the form says itself
    // what it keeps on the device.
    <Affix
      position={{ bottom: 44, right: 12 }}
      zIndex={getDefaultZIndex('app')}
      data-testid="pending-communications-affix"
    >
      {/* Always present, so screen readers announce the count as it changes (a live region). */}
      <div role="status" aria-live="polite">
        {kept > 0 && (
          <Badge
            color="yellow"
            variant="filled"
            size="lg"
            data-testid="pending-communications"
            title="通信が戻ると自動で送信します"
          >
            未送信 {kept}件
          </Badge>
        )}
      </div>
    </Affix>
  );
}
