/**
 * The zod-free part of the contracts a client needs at boot: calling endpoints (method, path, service),
 * headers, error messages, auth defaults and the menu's features. Importing it instead of the package
 * root keeps zod and the endpoint schemas out of the web's entry chunk; routes and forms import the
 * schemas themselves when they load.
 */
export * from './core/endpoint.ts';
export * from './core/query-string.ts';
export * from './core/feature-keys.ts';
export * from './core/auth-constants.ts';
export * from './core/error-messages.ts';
export * from './endpoint-routes.ts';
export type { FeatureKey, Plan, Role } from './core/features.ts';
export * from './core/list-version.ts';
export * from './core/prefectures.ts';
export * from './alerts/alert-summary.ts';
