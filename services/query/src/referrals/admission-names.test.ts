import { describe, expect, it } from 'vitest';
import { admissionDepartment, dpcGroupName } from './admission-names.ts';

describe('admission names', () => {
  it('names a 様式1 3-digit department code, a 別表10 2-digit one, and keeps an unknown code visible', () => {
    expect(admissionDepartment('350')).toBe('循環器内科（350）');
    expect(admissionDepartment('510')).toBe('消化器外科（510）');
    expect(admissionDepartment('11')).toBe('整形外科（11）');
    expect(admissionDepartment(' 120 ')).toBe('整形外科（120）');
    expect(admissionDepartment('999')).toBe('診療科コード 999');
    expect(admissionDepartment('')).toBeNull();
    expect(admissionDepartment(null)).toBeNull();
  });

  it('names the MDC of a DPC code (its first two digits)', () => {
    expect(dpcGroupName('050050xx99000x')).toBe('MDC05 循環器系疾患');
    expect(dpcGroupName('160800xx01xxxx')).toBe('MDC16 外傷・熱傷・中毒');
    expect(dpcGroupName('99')).toBeNull();
    expect(dpcGroupName('0')).toBeNull();
    expect(dpcGroupName(null)).toBeNull();
  });
});
