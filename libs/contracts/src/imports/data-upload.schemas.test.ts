import { describe, expect, it } from 'vitest';
import { DataUploadRecord, MappingProfilesInput } from './data-upload.schemas.ts';

const profile = (mapping: Record<string, unknown>) => ({
  profiles: [{ id: '00000000-0000-4000-8000-000000000001', import_type: 'referral', name: '紹介', mapping }],
});

describe('mapping profiles', () => {
  it('name a column by its header text or by its 1-based position (a list without a header)', () => {
    const parsed = MappingProfilesInput.parse(profile({ 紹介日: ' 紹介年月日 ', 患者ID: 2, 紹介元医療機関名: 1000 }));
    expect(parsed.profiles[0]!.mapping).toEqual({ 紹介日: '紹介年月日', 患者ID: 2, 紹介元医療機関名: 1000 });
  });

  it('refuse a position that is no column, and an empty name', () => {
    for (const bad of [0, -1, 1.5, 1001, '', '  '])
      expect(MappingProfilesInput.safeParse(profile({ 紹介日: bad })).success, String(bad)).toBe(false);
    const issues = MappingProfilesInput.safeParse(profile({ 紹介日: 0 })).error!.issues;
    expect(JSON.stringify(issues)).toContain('列の位置は1以上で指定してください');
  });
});

describe('data upload record', () => {
  it('names the unknown departments with their rows, at most 50, and is read without them (before the worker ran)', () => {
    const record = {
      id: '00000000-0000-4000-8000-000000000002',
      filename: '紹介.csv',
      status: 'completed',
      error_messages: [],
      imported_row_count: 1,
      failed_row_count: 0,
      unprocessed_row_count: 0,
      abortion_row_number: null,
      created_at: '2024-06-01T00:00:00.000Z',
      created_by: null,
      import_type: 'referral',
      total_row_count: 1,
      new_record_count: 1,
      updated_record_count: 0,
      unchanged_record_count: 0,
      unmatched_row_count: 0,
      withdrawing: false,
      unmatched_institutions: [],
    };
    expect(DataUploadRecord.safeParse(record).success).toBe(true);
    const named = {
      ...record,
      unknown_department_row_count: 120,
      unknown_departments: [{ name: '整形外科', row_count: 120 }],
    };
    expect(DataUploadRecord.parse(named).unknown_departments).toEqual([{ name: '整形外科', row_count: 120 }]);
    const many = Array.from({ length: 51 }, (_, i) => ({ name: `科${i}`, row_count: 1 }));
    expect(DataUploadRecord.safeParse({ ...named, unknown_departments: many }).success).toBe(false);
  });
});
