import { hash } from 'node:crypto';

const namespaces = new Map<string, Buffer>();
/** Namespace then name, reused by every call: a rebuild derives one id per fact (100,000s in a row). */
let scratch = Buffer.allocUnsafe(256);

/**
 * A name-based UUID (RFC 9562 version 5: SHA-1 of namespace and name). The same inputs always give
 * the same id, which is what makes derived ids (stream keys, retried commands' event ids) stable.
 * `namespace` is 16 bytes as 32 hex digits; an id stored once must keep its namespace forever.
 * One-shot `hash` over a reused buffer: a Hash object and two Buffers per call were most of its cost.
 */
export function uuidV5(namespace: string, name: string): string {
  let ns = namespaces.get(namespace);
  if (!ns) namespaces.set(namespace, (ns = Buffer.from(namespace, 'hex')));
  const length = ns.length + Buffer.byteLength(name, 'utf8');
  if (length > scratch.length) scratch = Buffer.allocUnsafe(length * 2);
  ns.copy(scratch, 0);
  scratch.write(name, ns.length, 'utf8');
  const digest = hash('sha1', scratch.subarray(0, length), 'buffer');
  digest[6] = (digest[6]! & 0x0f) | 0x50;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  const hex = digest.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
