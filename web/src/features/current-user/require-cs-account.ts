import { permissionRequiredMessage } from '@renkei/contracts/client';
import { ApiError } from '../../api/api-errors.ts';
import type { SignedInUser } from './signed-in-user.ts';

/** The tenant settings are the vendor's support account's alone (spec §6), as their endpoints are. */
export function requireCsAccount(user: SignedInUser | undefined): void {
  if (!user?.csAccount) throw new ApiError(403, permissionRequiredMessage);
}
