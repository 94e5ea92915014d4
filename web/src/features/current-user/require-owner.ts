import { permissionRequiredMessage } from '@renkei/contracts/client';
import { ApiError } from '../../api/api-errors.ts';
import type { SignedInUser } from './signed-in-user.ts';

/** An owner's page opened by a member answers the 403 page, as its endpoints do (docs/decisions.md "Roles"). */
export function requireOwner(user: SignedInUser | undefined): void {
  if (user?.role !== 'owner') throw new ApiError(403, permissionRequiredMessage);
}
