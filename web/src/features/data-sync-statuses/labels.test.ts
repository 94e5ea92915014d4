import { describe, expect, it } from 'vitest';
import { readModelLabel } from './labels.ts';

// The projections of `@renkei/read-models` (readModelProjections), as /data_sync_statuses lists them.
const readModels = [
  'communication_imports',
  'communications',
  'emails',
  'label_value_imports',
  'medical_institution_crm',
  'referrals',
  'tags',
  'tasks',
  'tenant_settings',
  'visit_rollups',
  'vocs',
];

describe('readModelLabel', () => {
  it.each(readModels)('names %s in Japanese, not by its internal name', (name) => {
    const label = readModelLabel(name);
    expect(label).not.toBe(name);
    expect(label).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
  });

  it('shows an unknown name (a newer build) as it is', () => {
    expect(readModelLabel('future_model')).toBe('future_model');
  });
});
