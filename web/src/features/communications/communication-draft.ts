/**
 * A communication being logged, kept on the device until the server has it: a phone in a clinic's car
 * park loses the network, the tab is closed, the app is reloaded — the record is not lost, and the
 * Idempotency-Key kept with it means a send repeated after the network returns makes one record.
 * Keyed by account (another account on a shared device never sees it) and by the institution the
 * form was opened for.
 */
export interface StoredDraft<V> {
  version: 1;
  values: V;
  idempotencyKey: string;
  /** Sent while offline: to be sent again as soon as the network is back. */
  pending: boolean;
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
