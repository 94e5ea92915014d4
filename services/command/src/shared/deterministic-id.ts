import { createHash } from 'node:crypto';

/** Renkei's UUIDv5 namespace. Never change it: ids derived from it are stored. */
const namespace = Buffer.from('6c1f3b52a0d94e5e9a1e0b8a4f7d2c31', 'hex');

/**
 * A UUIDv5 of `name`: the same inputs always give the same id, so a retried command appends the
 * same event ids and the event store recognises it as the same append.
 */
export function deterministicId(...parts: string[]): string {
  const hash = createHash('sha1').update(namespace).update(parts.join('\u0000'), 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
