export * from './auth.ts';
export * from './revocations.ts';
export * from './error-handler.ts';
export * from './metrics.ts';
export * from './service-app.ts';
export * from './register-endpoint.ts';
export * from './testing/index.ts';
