export { signingKey } from './signing-key.ts';
