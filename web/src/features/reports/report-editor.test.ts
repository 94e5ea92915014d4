import { staticReportItems } from '@renkei/contracts';
import { describe, expect, it } from 'vitest';
import {
  emptyDefinition,
  inputToRate,
  newFormulaKey,
  operatorsFor,
  periodOfFiscalYears,
  periodOfMonths,
  rateToInput,
  requestOf,
  validateDefinition,
  withOperator,
  yearBefore,
} from './report-editor.ts';

const ops = (type: Parameters<typeof operatorsFor>[0]) => operatorsFor(type).map((o) => o.value);

describe('report editor logic', () => {
  it('starts a comparison period at the same months a year earlier', () => {
    expect(yearBefore({ from: '2025-04-01', to: '2026-03-31' })).toEqual({ from: '2024-04-01', to: '2025-03-31' });
    // A period ending in a leap February compares with the whole February before it.
    expect(yearBefore({ from: '2023-03-01', to: '2024-02-29' })).toEqual({ from: '2022-03-01', to: '2023-02-28' });
    expect(yearBefore({ from: '2024-03-01', to: '2025-02-28' })).toEqual({ from: '2023-03-01', to: '2024-02-29' });
  });

  it('offers the operators of the item value type', () => {
    expect(ops('selection')).toEqual(['in', 'not_in', 'is_empty']);
    expect(ops('string')).toContain('contains');
    expect(ops('string')).not.toContain('gte');
    expect(ops('integer')).toEqual(expect.arrayContaining(['gte', 'lte', 'between', 'eq']));
    expect(ops('integer')).not.toContain('contains');
    expect(ops('rate')).not.toContain('eq');
    // Dates read as days: 以降 / 以前.
    expect(operatorsFor('date').find((o) => o.value === 'gte')?.label).toBe('以降');
  });

  it('keeps the values an operator can still use', () => {
    const f = { item_key: 'referral_count', operator: 'between' as const, values: ['1', '5'] };
    expect(withOperator(f, 'gte').values).toEqual(['1']);
    expect(withOperator(f, 'is_empty').values).toEqual([]);
    expect(withOperator({ ...f, operator: 'in', values: ['a', 'b', 'c'] }, 'not_in').values).toEqual(['a', 'b', 'c']);
  });

  it('types rates in percent and sends fractions', () => {
    expect(inputToRate('25')).toBe('0.25');
    expect(inputToRate('12.5')).toBe('0.125');
    expect(rateToInput('0.125')).toBe('12.5');
    expect(rateToInput(undefined)).toBe('');
  });

  it('names a new computed column with the first free formula key', () => {
    expect(newFormulaKey([{ item_key: 'referral_count' }])).toBe('formula:1');
    expect(newFormulaKey([{ item_key: 'formula:1' }, { item_key: 'formula:3' }])).toBe('formula:2');
  });

  it('turns months and 年度 into the period days', () => {
    expect(periodOfMonths('2024-04', '2025-02')).toEqual({ from: '2024-04-01', to: '2025-02-28' });
    expect(periodOfMonths('2024-02', '2024-02')).toEqual({ from: '2024-02-01', to: '2024-02-29' });
    expect(periodOfFiscalYears(2024, 2025)).toEqual({ from: '2024-04-01', to: '2026-03-31' });
  });

  it('starts a new report with the naming columns and the last twelve full months', () => {
    const d = emptyDefinition('medical_institution_reports', new Date('2026-11-30T00:00:00Z'));
    expect(d.display_items.map((i) => i.item_key)).toEqual(['medical_institution_name']);
    expect(d.aggregation_settings.period).toEqual({ from: '2025-11-01', to: '2026-10-31' });
    for (const item of d.display_items)
      expect(staticReportItems.medical_institution_reports.some((s) => s.key === item.item_key)).toBe(true);
  });

  it('checks a computed column and a filter without values before sending', () => {
    const values = emptyDefinition('medical_institution_reports', new Date('2026-11-30T00:00:00Z'));
    const errors = validateDefinition({
      ...values,
      display_items: [
        ...values.display_items,
        {
          item_key: 'formula:1',
          label: '',
          aggregation_method: null,
          formula: { left: 'referral_count', operator: 'minus', right: '' },
        },
      ],
      filter_conditions: [{ item_key: 'referral_count', operator: 'between', values: ['1'] }],
    });
    expect(errors).toMatchObject({
      name: 'レポート名を入力してください',
      'display_items.1.label': '計算列の名前を入力してください',
      'display_items.1.formula.right': '項目を選択してください',
      'filter_conditions.0.values': '値を入力してください',
    });
    expect(errors['display_items.1.formula.left']).toBeUndefined();
  });

  it('sends a blank display name as none', () => {
    const values = emptyDefinition('area_reports', new Date('2026-11-30T00:00:00Z'));
    const sent = requestOf({
      ...values,
      name: ' 県別 ',
      display_items: [{ ...values.display_items[0]!, label: '  ' }],
    });
    expect(sent.name).toBe('県別');
    expect(sent.display_items[0]!.label).toBeNull();
  });
});
