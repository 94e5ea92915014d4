import { describe, expect, it } from 'vitest';
import { isKnownItemKey, labelIdOfItemKey, reportKinds, staticReportItem, staticReportItems } from '../index.ts';

describe('report item catalog', () => {
  it('names each item once per kind', () => {
    for (const kind of reportKinds) {
      const keys = staticReportItems[kind].map((item) => item.key);
      expect(new Set(keys).size, kind).toBe(keys.length);
    }
  });

  it('gives rates no aggregation method and counts sum, average and count', () => {
    expect(staticReportItem('medical_institution_reports', 'operation_rate')?.aggregation_methods).toEqual([]);
    expect(staticReportItem('area_reports', 'referral_count')?.aggregation_methods).toEqual([
      'sum',
      'average',
      'count',
    ]);
    expect(staticReportItem('communication_reports', 'referral_count')).toBeUndefined();
  });

  it('takes label items only for the kinds whose rows carry labels', () => {
    const key = 'label:7B0C8F4E-4A43-4A39-9D4F-2D4A6F0F2E11';
    expect(labelIdOfItemKey(key)).toBe('7b0c8f4e-4a43-4a39-9d4f-2d4a6f0f2e11');
    expect(isKnownItemKey('medical_institution_reports', key)).toBe(true);
    expect(isKnownItemKey('communication_reports', key)).toBe(true);
    expect(isKnownItemKey('area_reports', key)).toBe(false);
    expect(isKnownItemKey('medical_institution_reports', 'label:not-a-uuid')).toBe(false);
    expect(isKnownItemKey('own_department_reports', 'medical_institution_name')).toBe(false);
    expect(isKnownItemKey('own_department_reports', 'own_department_name')).toBe(true);
  });
});
