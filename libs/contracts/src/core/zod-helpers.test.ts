import { describe, expect, it } from 'vitest';
import { inputDate } from './zod-helpers.ts';

describe('inputDate', () => {
  const date = inputDate('日付はYYYY-MM-DD形式で入力してください');

  it('accepts real dates from 1900 to 2100', () => {
    for (const v of ['1900-01-01', '2024-02-29', '2100-12-31']) expect(date.safeParse(v).success, v).toBe(true);
  });

  it('refuses year 0000, dates outside the business range and dates that do not exist', () => {
    for (const v of ['0000-01-01', '1899-12-31', '2101-01-01', '9999-12-31', '2023-02-29', '2024-13-01', 'x']) {
      expect(date.safeParse(v).success, v).toBe(false);
    }
    expect(date.safeParse('0000-01-01').error?.issues[0]?.message).toBe(
      '日付は1900年1月1日から2100年12月31日の間で入力してください',
    );
    expect(date.safeParse('x').error?.issues.map((i) => i.message)).toEqual(['日付はYYYY-MM-DD形式で入力してください']);
  });
});
