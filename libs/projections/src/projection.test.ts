import { describe, expect, it } from 'vitest';
import { defineProjection, physicalTables } from './projection.ts';

const base = {
  name: 'tags',
  version: 3,
  eventTypes: ['TagCreated'],
  tables: ['tags', 'tag_groups'] as const,
  setup: async () => undefined,
  handle: async () => undefined,
};

describe('defineProjection', () => {
  it('maps logical tables to the versioned physical tables', () => {
    const p = defineProjection({ ...base, tables: [...base.tables] });
    expect(physicalTables(p, 'v3')).toEqual({ tags: 'rm.tags_v3', tag_groups: 'rm.tag_groups_v3' });
    expect(physicalTables(p, 'v3_r1')).toEqual({ tags: 'rm.tags_v3_r1', tag_groups: 'rm.tag_groups_v3_r1' });
  });

  it('refuses names that are not safe SQL identifiers and versions below 1', () => {
    expect(() => defineProjection({ ...base, tables: [...base.tables], name: 'Tags; drop' })).toThrow();
    expect(() => defineProjection({ ...base, tables: ['tags"x'] })).toThrow();
    expect(() => defineProjection({ ...base, tables: [...base.tables], version: 0 })).toThrow();
    expect(() => defineProjection({ ...base, tables: [...base.tables], eventTypes: [] })).toThrow();
  });
});
