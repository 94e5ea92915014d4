import { z } from 'zod';
import { featureKeys, plans, roles } from './feature-keys.ts';

export { featureKeys, plans, roles, menuFeature, type MenuKey } from './feature-keys.ts';

export const FeatureKey = z.enum(featureKeys);
export type FeatureKey = z.infer<typeof FeatureKey>;

export const Plan = z.enum(plans);
export type Plan = z.infer<typeof Plan>;

export const Role = z.enum(roles);
export type Role = z.infer<typeof Role>;
