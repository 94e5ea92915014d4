export * from './test-auth.ts';
export * from './roles-walk.ts';
