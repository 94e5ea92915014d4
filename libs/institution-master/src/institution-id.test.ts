import { expect, it } from 'vitest';
import { institutionIdFromCode } from './institution-id.ts';

it('derives the id stored for a code before (namespace and algorithm never change)', () => {
  expect(institutionIdFromCode('1311234567')).toBe('e3f3b981-8bab-5e95-b454-b20a9511ebb7');
});
