export * from './core/endpoint.ts';
export * from './core/features.ts';
export * from './core/auth.ts';
export * from './core/errors.ts';
export * from './core/query-string.ts';
export * from './core/zod-helpers.ts';
export * from './tags/tag.schemas.ts';
export * from './registry.ts';
