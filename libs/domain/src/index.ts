export * from './identity/identity.events.ts';
