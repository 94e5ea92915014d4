import type { FeatureKey } from '@renkei/contracts';
import { ApiError } from '../../api/api-errors.ts';
import type { SignedInUser } from './signed-in-user.ts';

/** A page of a feature the tenant lacks answers the 403 page, like its endpoints do. */
export function requireFeature(user: SignedInUser | undefined, feature: FeatureKey): void {
  if (!user?.features.includes(feature)) throw new ApiError(403, 'アクセス権限がありません。');
}
