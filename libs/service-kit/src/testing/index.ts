export * from './test-auth.ts';
export * from './roles-walk.ts';
export * from './account-events.ts';
