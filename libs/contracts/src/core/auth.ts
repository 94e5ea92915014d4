import { z } from 'zod';
import { FeatureKey, Role } from './features.ts';

export {
  defaultSignInPolicy,
  scopeFor,
  clientVersionHeader,
  clientVersion,
  positionHeader,
  minPositionHeader,
  defaultResources,
  defaultSpaClientId,
} from './auth-constants.ts';

/**
 * Claims of every access token Renkei's services accept. The tenant, account, role and features
 * come from here and never from the request.
 */
export const AccessTokenClaims = z.object({
  sub: z.string().uuid(),
  tid: z.string().uuid(),
  role: Role,
  features: z.array(FeatureKey),
  /** The vendor's support account; absent on everyone else's tokens. */
  cs: z.boolean().optional(),
  tfp: z.string().optional(),
  aud: z.union([z.string(), z.array(z.string())]),
  iss: z.string(),
  exp: z.number(),
});
export type AccessTokenClaims = z.infer<typeof AccessTokenClaims>;
