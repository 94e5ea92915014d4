import { describe, expect, it } from 'vitest';
import { checkLabelValues, isStorableDate, type LabelDefinition } from './label-values.ts';
import type { LabelValueData } from './label.events.ts';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const labels = new Map<string, LabelDefinition>([
  [id(1), { id: id(1), name: '病床規模', componentType: 'integer', selections: [], areas: [] }],
  [
    id(2),
    {
      id: id(2),
      name: '重点度',
      componentType: 'select',
      selections: [{ id: id(20), label: 'A', order: 0 }],
      areas: [],
    },
  ],
  [
    id(3),
    {
      id: id(3),
      name: '担当エリア',
      componentType: 'area',
      selections: [],
      areas: [{ id: id(30), name: '東部', addresses: [] }],
    },
  ],
]);
const v = (labelId: string, patch: Partial<LabelValueData>): LabelValueData => ({
  label_id: labelId,
  text_value: null,
  integer_value: null,
  date_value: null,
  time_value: null,
  selection_id: null,
  selection_ids: [],
  own_department_id: null,
  area_id: null,
  ...patch,
});

describe('checkLabelValues', () => {
  it('keeps the field of each component type and drops the others', () => {
    const r = checkLabelValues(
      [v(id(1), { integer_value: 3, text_value: 'x' }), v(id(2), { selection_id: id(20) })],
      labels,
      new Set(),
    );
    expect(r.problems).toEqual([]);
    expect(r.values[0]).toMatchObject({ integer_value: 3, text_value: null });
    expect(r.values[1]!.selection_id).toBe(id(20));
  });

  it('treats an all-empty value as clearing the label', () => {
    const r = checkLabelValues([v(id(1), {})], labels, new Set());
    expect(r).toMatchObject({ values: [], removedLabelIds: [id(1)], problems: [] });
  });

  it('reports unknown labels, wrong fields and foreign choices by index', () => {
    const r = checkLabelValues(
      [
        v(id(9), { text_value: 'a' }),
        v(id(1), { text_value: 'a' }),
        v(id(2), { selection_id: id(99) }),
        v(id(3), { area_id: id(30) }),
      ],
      labels,
      new Set(),
    );
    expect(r.problems.map((p) => [p.index, p.field])).toEqual([
      [0, 'label_id'],
      [1, 'integer_value'],
      [2, 'selection_id'],
    ]);
    expect(r.values).toHaveLength(1);
  });
});

describe('dates a label value may carry', () => {
  it('accepts only real dates of years 0001–9999, what a Postgres date column stores', () => {
    expect(isStorableDate('2026-11-24')).toBe(true);
    expect(isStorableDate('0001-01-01')).toBe(true);
    expect(isStorableDate('2024-02-29')).toBe(true);
    expect(isStorableDate('0000-01-01')).toBe(false);
    expect(isStorableDate('2023-02-29')).toBe(false);
    expect(isStorableDate('2026-13-01')).toBe(false);
    expect(isStorableDate('2026-1-01')).toBe(false);
  });

  it('refuses a date label value of year 0000 instead of letting it reach the read model', () => {
    const dated = new Map<string, LabelDefinition>([
      [id(4), { id: id(4), name: '協定締結日', componentType: 'date', selections: [], areas: [] }],
    ]);
    const result = checkLabelValues([v(id(4), { date_value: '0000-01-01' })], dated, new Set());
    expect(result.values).toEqual([]);
    expect(result.problems).toEqual([expect.objectContaining({ index: 0, field: 'date_value' })]);
  });
});
