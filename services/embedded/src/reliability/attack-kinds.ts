import type { EndpointContract } from '@renkei/contracts';

export const authKinds = [
  'auth.none',
  'auth.garbage',
  'auth.expired',
  'auth.wrongAudience',
  'auth.wrongIssuer',
  'auth.algNone',
  'auth.tampered',
  'auth.deletedAccount',
] as const;

export const attackKinds = [
  ...authKinds,
  'isolation',
  'feature.off',
  'role.denied',
  'fuzz.valid',
  'fuzz.invalid',
  'idempotency',
  'concurrency',
  'uploads',
] as const;
export type AttackKind = (typeof attackKinds)[number];

const hasInputs = (e: EndpointContract) => Boolean(e.params || e.query || e.body);
/** Writes a client may retry: every POST of the command service (the contract documents the header there). */
const isCommandPost = (e: EndpointContract) => e.service === 'command' && e.method === 'POST';
/**
 * Writes that may carry `If-Match`, unless the registry says the write has no version (`versionGuarded:
 * false`); whether the handler honours it is probed at run time.
 */
const mayBeVersionGuarded = (e: EndpointContract) =>
  e.service === 'command' && (e.method === 'PUT' || e.method === 'DELETE') && e.versionGuarded !== false;

/** Which attacks apply to an endpoint, from its registry entry only. */
export function applicableKinds(e: EndpointContract): AttackKind[] {
  return attackKinds.filter((kind) => {
    switch (kind) {
      case 'feature.off':
        return e.feature !== null;
      case 'role.denied':
        return e.ownerOnly === true;
      case 'fuzz.invalid':
        return hasInputs(e);
      case 'idempotency':
        return isCommandPost(e);
      case 'concurrency':
        return mayBeVersionGuarded(e);
      case 'uploads':
        return e.multipart === true;
      default:
        return true;
    }
  });
}
