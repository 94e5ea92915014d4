import { createHash } from 'node:crypto';

// A fixed namespace makes institution ids the same on every install and every re-import.
const namespace = Buffer.from('6f1c2a7e0b3d4e5f8a9b0c1d2e3f4a5b', 'hex');

/** The id of the institution with a 医療機関コード: a name-based (v5) UUID of the code. */
export function institutionIdFromCode(code: string): string {
  const hash = createHash('sha1').update(namespace).update(code).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const h = hash.subarray(0, 16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}
