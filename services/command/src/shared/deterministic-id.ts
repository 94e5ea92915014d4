import { uuidV5 } from '@renkei/domain';

/** Renkei's command namespace. Never change it: ids derived from it are stored. */
const namespace = '6c1f3b52a0d94e5e9a1e0b8a4f7d2c31';

/**
 * A UUIDv5 of `parts`: the same inputs always give the same id, so a retried command appends the
 * same event ids and the event store recognises it as the same append.
 */
export function deterministicId(...parts: string[]): string {
  return uuidV5(namespace, parts.join('\u0000'));
}
