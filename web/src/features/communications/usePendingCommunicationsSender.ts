import { useEffect, useRef, useState } from 'react';
import { ApiError, isNetworkError } from '../../api/api-errors.ts';
import { toast } from '../../app/toast.ts';
import {
  emitOutbox,
  isOutboxStorageKey,
  listOutbox,
  removeFromOutbox,
  returnToDraft,
  subscribeOutbox,
  type OutboxEntry,
} from './communication-outbox.ts';
import { useCreateCommunication } from './communications.queries.ts';

/** How often kept records are tried again while any exist, besides the browser's `online` event. */
const pendingRetryMs = 10_000;

export const pendingSentMessage = '未送信だった活動記録を送信しました';

/**
 * An answer the user has to act on. An expired session (401), a timeout (408) or a rate limit (429)
 * pass by themselves, as do server errors (5xx): those records are simply tried again.
 */
const isRefusal = (error: unknown): error is ApiError =>
  error instanceof ApiError &&
  !isNetworkError(error) &&
  error.status >= 400 &&
  error.status < 500 &&
  ![401, 408, 429].includes(error.status);

function refusalMessage(entry: OutboxEntry, error: ApiError, placed: boolean): string {
  const reason = error.errors[0]?.message ?? error.message;
  return placed
    ? `「${entry.institution.name}」の活動記録を送信できませんでした（${reason}）。「活動を記録」を開くと入力内容が戻っています。直してから記録してください。`
    : `「${entry.institution.name}」の活動記録を送信できませんでした（${reason}）。入力途中の記録を記録するか破棄すると、この記録が入力欄に戻ります。`;
}

/**
 * The one sender of records kept on the device (communication-outbox.ts), mounted once for the
 * signed-in account so a record goes out even when no form is open: at start-up, on the browser's
 * `online` event, when a form queues one, and every `retryMs` while any are kept. Each is sent with
 * its own Idempotency-Key (a repeat is the same record) and removed once the server has it; a
 * refusal turns it back into a draft and says so, naming the institution. Answers the number kept.
 */
export function usePendingCommunicationsSender(accountId: string, retryMs = pendingRetryMs): number {
  const create = useCreateCommunication();
  const send = useRef(create.mutateAsync);
  send.current = create.mutateAsync;
  const [count, setCount] = useState(() => listOutbox(accountId).length);

  useEffect(() => {
    let stopped = false;
    let busy = false;
    let again = false;
    let timer: ReturnType<typeof setInterval> | undefined;

    const track = () => {
      const kept = listOutbox(accountId).length;
      setCount(kept);
      if (kept > 0 && timer === undefined) timer = setInterval(() => void flush(), retryMs);
      if (kept === 0 && timer !== undefined) {
        clearInterval(timer);
        timer = undefined;
      }
    };

    const placeBack = (entry: OutboxEntry, error: ApiError | null) => {
      const slot = returnToDraft(accountId, entry);
      if (error) toast.error(refusalMessage(entry, error, slot !== null));
      if (error || slot !== null)
        emitOutbox({ type: 'returned', idempotencyKey: entry.idempotencyKey, draftKey: slot, error });
    };

    async function flush(): Promise<void> {
      if (busy) {
        // Asked again while sending (a record queued meanwhile): one more round once this one ends.
        again = true;
        return;
      }
      busy = true;
      let sent = 0;
      try {
        for (const entry of listOutbox(accountId)) {
          if (stopped) return;
          if (entry.refused) {
            placeBack(entry, null);
            continue;
          }
          if (typeof navigator !== 'undefined' && navigator.onLine === false) continue;
          try {
            const saved = await send.current({
              institutionId: entry.institution.id,
              body: entry.body,
              idempotencyKey: entry.idempotencyKey,
            });
            removeFromOutbox(accountId, entry.idempotencyKey);
            sent++;
            emitOutbox({
              type: 'sent',
              idempotencyKey: entry.idempotencyKey,
              institutionId: saved.medical_institution?.id ?? entry.institution.id,
            });
          } catch (error) {
            if (isRefusal(error)) placeBack(entry, error);
            // No answer, or a passing failure: kept for the next round. A network that is down for
            // one record is down for the next, so the round ends here.
            else if (isNetworkError(error)) break;
          }
        }
      } finally {
        busy = false;
        if (sent > 0) toast.success(pendingSentMessage);
        if (!stopped) track();
      }
      if (again && !stopped) {
        again = false;
        await flush();
      }
    }

    const onOnline = () => void flush();
    const onStorage = (event: StorageEvent) => {
      if (isOutboxStorageKey(event.key)) track();
    };
    const unsubscribe = subscribeOutbox((event) => {
      if (event.type === 'queued') void flush();
    });
    window.addEventListener('online', onOnline);
    window.addEventListener('storage', onStorage);
    void flush();
    return () => {
      stopped = true;
      unsubscribe();
      window.removeEventListener('online', onOnline);
      window.removeEventListener('storage', onStorage);
      if (timer !== undefined) clearInterval(timer);
    };
  }, [accountId, retryMs]);

  return count;
}
