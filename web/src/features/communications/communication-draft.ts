/**
 * A communication being typed, kept on the device: the tab is closed, the app is reloaded, the phone
 * runs out of battery — what was typed is not lost, and the Idempotency-Key kept with it means a
 * submit repeated later makes one record. Keyed by account (another account on a shared device never
 * sees it) and by the institution the form was opened for. A record submitted without a network
 * leaves its draft for the outbox (communication-outbox.ts), which sends it with no form open.
 */
export interface StoredDraft<V> {
  version: 1;
  values: V;
  idempotencyKey: string;
  /**
   * Set by an earlier version, whose form sent its own kept records: such a draft is restored like
   * any other, and its submit (with the same Idempotency-Key) still makes one record.
   */
  pending?: boolean;
  saved_at: string;
}

const prefix = 'renkei:communication-draft:';

export const draftKey = (accountId: string, institutionId: string | null) =>
  `${prefix}${accountId}:${institutionId ?? 'any'}`;

function storage(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    // Storage disabled (private mode, policy): the form still works, without a draft.
    return null;
  }
}

export function loadDraft<V>(key: string): StoredDraft<V> | null {
  const raw = storage()?.getItem(key);
  if (!raw) return null;
  try {
    const draft = JSON.parse(raw) as StoredDraft<V>;
    return draft.version === 1 && typeof draft.idempotencyKey === 'string' ? draft : null;
  } catch {
    return null;
  }
}

export function saveDraft<V>(key: string, draft: Omit<StoredDraft<V>, 'version' | 'saved_at'>): void {
  try {
    storage()?.setItem(key, JSON.stringify({ version: 1, ...draft, saved_at: new Date().toISOString() }));
  } catch {
    // Quota exceeded: the form keeps its state in memory; nothing else to do.
  }
}

export function clearDraft(key: string): void {
  storage()?.removeItem(key);
}
