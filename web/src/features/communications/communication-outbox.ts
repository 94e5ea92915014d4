import type { ApiError } from '../../api/api-errors.ts';
import type { CommunicationCreateValues } from './communications.queries.ts';
import { draftKey, loadDraft, saveDraft } from './communication-draft.ts';

/**
 * Records the form could not send (no network), kept on the device until the app-level sender
 * (`usePendingCommunicationsSender`) has them on the server. They live apart from the form's drafts:
 * one entry per record, keyed by its Idempotency-Key, so closing the form, logging the next record for
 * the same institution, or a reload never overwrites one that is still waiting. The entry holds the
 * request exactly as the form built it, so the sender needs neither the form nor the labels.
 */
export interface OutboxEntry {
  version: 1;
  idempotencyKey: string;
  institution: { id: string; name: string };
  body: CommunicationCreateValues;
  /** The form's draft slot and values: where the record goes back to when the server refuses it. */
  draft: { key: string; values: unknown };
  /**
   * Refused by the server while its draft slots were taken (the user was typing the next record):
   * not sent again, put back into a slot as soon as one is free.
   */
  refused?: boolean;
  queued_at: string;
}

export type OutboxEvent =
  | { type: 'queued' }
  | { type: 'sent'; idempotencyKey: string; institutionId: string }
  /**
   * Refused by the server and turned back into a draft at `draftKey` (null: waiting for a free slot);
   * `error` is the refusal, null when a record refused earlier is placed later.
   */
  | { type: 'returned'; idempotencyKey: string; draftKey: string | null; error: ApiError | null };

const prefix = 'renkei:communication-outbox:';
const accountPrefix = (accountId: string) => `${prefix}${accountId}:`;
const entryKey = (accountId: string, idempotencyKey: string) => `${accountPrefix(accountId)}${idempotencyKey}`;

function storage(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

/** A change by another tab (the `storage` event) to kept records. */
export const isOutboxStorageKey = (key: string | null) => key === null || key.startsWith(prefix);

const listeners = new Set<(event: OutboxEvent) => void>();

/** What happens to kept records (queued by a form, sent or refused by the sender), in this tab. */
export function subscribeOutbox(listener: (event: OutboxEvent) => void): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

export function emitOutbox(event: OutboxEvent): void {
  for (const listener of [...listeners]) listener(event);
}

/** The account's kept records, oldest first (the order they were logged). */
export function listOutbox(accountId: string): OutboxEntry[] {
  const store = storage();
  if (!store) return [];
  const own = accountPrefix(accountId);
  const entries: OutboxEntry[] = [];
  for (let i = 0; i < store.length; i++) {
    const key = store.key(i);
    if (!key?.startsWith(own)) continue;
    try {
      const entry = JSON.parse(store.getItem(key) ?? '') as OutboxEntry;
      if (entry.version === 1 && typeof entry.idempotencyKey === 'string') entries.push(entry);
    } catch {
      // Not ours to read (a later format or a broken write): left alone.
    }
  }
  return entries.sort((a, b) => a.queued_at.localeCompare(b.queued_at));
}

/**
 * Keeps a record for the sender. False when the device cannot keep it (storage disabled or full): the
 * form then keeps it on screen and says so.
 */
export function enqueueCommunication(accountId: string, entry: Omit<OutboxEntry, 'version' | 'queued_at'>): boolean {
  const store = storage();
  if (!store) return false;
  try {
    const stored: OutboxEntry = { version: 1, ...entry, queued_at: new Date().toISOString() };
    store.setItem(entryKey(accountId, entry.idempotencyKey), JSON.stringify(stored));
  } catch {
    return false;
  }
  emitOutbox({ type: 'queued' });
  return true;
}

export function removeFromOutbox(accountId: string, idempotencyKey: string): void {
  storage()?.removeItem(entryKey(accountId, idempotencyKey));
}

/**
 * A refused record becomes a draft again, with its Idempotency-Key (a refused request wrote nothing,
 * so the corrected one may use it): in the form it came from, else in the form of its institution,
 * whichever holds no draft. Returns the slot, or null when both hold one (the entry then waits,
 * marked refused, and is placed by a later call).
 */
export function returnToDraft(accountId: string, entry: OutboxEntry): string | null {
  const slots = [entry.draft.key, draftKey(accountId, entry.institution.id)];
  const free = slots.find((key) => loadDraft(key) === null);
  if (free !== undefined) {
    saveDraft(free, { values: entry.draft.values, idempotencyKey: entry.idempotencyKey });
    // Removed only once the draft is written: a failed write leaves the record here, not nowhere.
    if (loadDraft(free)?.idempotencyKey === entry.idempotencyKey) {
      removeFromOutbox(accountId, entry.idempotencyKey);
      return free;
    }
  }
  if (!entry.refused) {
    try {
      storage()?.setItem(entryKey(accountId, entry.idempotencyKey), JSON.stringify({ ...entry, refused: true }));
    } catch {
      // Kept as it was: sent (and refused) again later, until a slot is free.
    }
  }
  return null;
}
