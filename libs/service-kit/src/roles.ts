import type { EndpointContract, Role } from '@renkei/contracts';

/**
 * The roles matrix (docs/decisions.md "Roles") as the registry records it on each entry: `csAccount`
 * first (tenant settings are the support account's alone; patient-level rows are never its), then
 * `ownerOnly`.
 */
export function matrixAllows(contract: EndpointContract, caller: { role: Role; csAccount: boolean }): boolean {
  if (contract.csAccount === 'only') return caller.csAccount;
  if (contract.csAccount === 'denied' && caller.csAccount) return false;
  return !contract.ownerOnly || caller.role === 'owner';
}
