export * from './test-auth.ts';
