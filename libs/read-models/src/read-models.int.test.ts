import { describe, it } from 'vitest';
import { projectionTest } from '@renkei/projections/testing';
import { readModelProjections } from './index.ts';

// Every read model refuses what it cannot read, instead of guessing: the engine then parks the tenant.
describe.each(readModelProjections.map((projection) => ({ projection, test: projectionTest(projection) })))(
  '$projection.name',
  ({ projection, test }) => {
    it.each(projection.eventTypes)('refuses %s of an unknown schema version', async (type) => {
      await test.given([{ type, data: {}, schemaVersion: 2 }]).thenFails(/schema version 2/);
    });
  },
);
