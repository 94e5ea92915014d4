import { describe, expect, it } from 'vitest';
import { readModelLabels } from '@renkei/contracts';
import { readModelProjections } from './index.ts';

describe('readModelLabels', () => {
  it.each(readModelProjections.map((p) => p.name))('names the read model %s in Japanese', (name) => {
    // /data_sync_statuses lists every projection: an internal name there means a label is missing.
    expect(readModelLabels[name]).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
  });
});
