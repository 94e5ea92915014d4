import { describe, expect, it } from 'vitest';
import type { CommunicationLabel } from '@renkei/contracts';
import {
  activeFilterCount,
  clearedFilters,
  communicationsSearch,
  effectiveConditions,
  furtherFilterCount,
  isReversedPeriod,
  labelsForTypes,
  periodOf,
} from './communications-search.ts';

describe('communicationsSearch', () => {
  it('keeps valid filters of the URL', () => {
    const user = '0b9f5c1e-2f7a-4c3b-9d1e-5a6b7c8d9e0f';
    expect(
      communicationsSearch({
        page: '3',
        sort: 'asc',
        from: '2026-01-01',
        to: '2026-03-31',
        types: ['visit', 'phone'],
        user_id: user,
        keyword: ' 院長 ',
      }),
    ).toEqual({
      page: 3,
      sort: 'asc',
      from: '2026-01-01',
      to: '2026-03-31',
      types: ['visit', 'phone'],
      user_id: user,
      keyword: '院長',
    });
  });

  it('drops each bad piece alone, so an old or hand-written link still opens', () => {
    expect(
      communicationsSearch({ page: '0', sort: 'sideways', from: '2026/01/01', types: ['visit', 'fax'], user_id: 'x' }),
    ).toEqual({ page: 1, sort: 'desc' });
  });
});

describe('periodOf', () => {
  it('searches from a start date alone, or up to an end date alone', () => {
    expect(periodOf({ from: '2026-11-01' })).toEqual({ from: '2026-11-01', to: '2100-12-31' });
    expect(periodOf({ to: '2026-01-31' })).toEqual({ from: '1900-01-01', to: '2026-01-31' });
    expect(periodOf({ from: '2026-11-01', to: '2026-11-30' })).toEqual({ from: '2026-11-01', to: '2026-11-30' });
    expect(periodOf({})).toBeUndefined();
  });

  it('leaves a reversed period out of the search instead of sending a refused one', () => {
    expect(isReversedPeriod({ from: '2026-11-30', to: '2026-11-01' })).toBe(true);
    expect(periodOf({ from: '2026-11-30', to: '2026-11-01' })).toBeUndefined();
    expect(isReversedPeriod({ from: '2026-11-30', to: '2026-11-30' })).toBe(false);
  });

  it('drops a date that is no calendar day from the URL', () => {
    expect(communicationsSearch({ from: '2026-02-30', to: '2026-03-01' })).toEqual({
      page: 1,
      sort: 'desc',
      to: '2026-03-01',
    });
  });

  it('drops a month that does not exist without throwing; keeps a date the search does not take, unsearched', () => {
    expect(communicationsSearch({ from: '2026-13-01', to: '2026-00-10' })).toEqual({ page: 1, sort: 'desc' });
    // A year being typed passes through 0002-04-01: the field keeps it, the search leaves that end out.
    const typing = communicationsSearch({ from: '0002-04-01', to: '2026-03-31' });
    expect(typing).toMatchObject({ from: '0002-04-01', to: '2026-03-31' });
    expect(periodOf(typing)).toEqual({ from: '1900-01-01', to: '2026-03-31' });
    expect(periodOf({ from: '1899-12-31', to: '2101-01-01' })).toBeUndefined();
  });
});

describe('communicationsSearch: further filters', () => {
  const [a, b, label] = [
    '0b9f5c1e-2f7a-4c3b-9d1e-5a6b7c8d9e0f',
    '1c9f5c1e-2f7a-4c3b-9d1e-5a6b7c8d9e0f',
    '2d9f5c1e-2f7a-4c3b-9d1e-5a6b7c8d9e0f',
  ];

  it('keeps institutions, tags, doctor attended and label conditions of each component type', () => {
    const labels = [
      { label_id: label, integer_min: 1, integer_max: 5 },
      { label_id: a, date_from: '2026-04-01', date_to: '2026-04-30' },
      { label_id: b, time_from: '09:00' },
      { label_id: label, selection_ids: [a, b] },
      { label_id: a, own_department_ids: [b] },
      { label_id: b, text: ' 院長 ' },
      { label_id: a, is_empty: true },
    ];
    expect(communicationsSearch({ institution_ids: [a, b], tag_ids: [b], doctor_attended: false, labels })).toEqual({
      page: 1,
      sort: 'desc',
      institution_ids: [a, b],
      tag_ids: [b],
      doctor_attended: false,
      labels: [...labels.slice(0, 5), { label_id: b, text: '院長' }, { label_id: a, is_empty: true }],
    });
    expect(communicationsSearch({ doctor_attended: 'true' }).doctor_attended).toBe(true);
  });

  it('drops a list whose conditions the API would refuse, so the page still opens', () => {
    const refused = [
      { label_id: label, integer_min: 6, integer_max: 5 },
      { label_id: label, date_from: '2026-05-01', date_to: '2026-04-30' },
      { label_id: label, time_from: '10:00', time_to: '09:00' },
      { label_id: label, integer_min: 1.5 },
      { label_id: label, date_from: '2026-02-30' },
      { label_id: label, time_to: '24:00' },
      { label_id: label, integer_min: 1, date_to: '2026-01-01' },
      { label_id: 'x' },
    ];
    for (const c of refused) expect(communicationsSearch({ labels: [c] }).labels, JSON.stringify(c)).toBeUndefined();
    expect(communicationsSearch({ institution_ids: ['x'], tag_ids: [a, 'y'], doctor_attended: 'maybe' })).toEqual({
      page: 1,
      sort: 'desc',
    });
  });
});

describe('effectiveConditions and the filter count', () => {
  const ids = {
    int: '3e9f5c1e-2f7a-4c3b-9d1e-5a6b7c8d9e0f',
    sel: '4f9f5c1e-2f7a-4c3b-9d1e-5a6b7c8d9e0f',
    gone: '5a9f5c1e-2f7a-4c3b-9d1e-5a6b7c8d9e0f',
  };
  const label = (id: string, component_type: CommunicationLabel['component_type']): CommunicationLabel => ({
    id,
    name: id,
    communication_type: 'visit',
    component_type,
    order: 0,
    description: '',
    selections: [],
    is_required: false,
    version: 0,
  });
  const labels = [label(ids.int, 'integer'), label(ids.sel, 'select')];

  it('sends the active conditions a label can meet, once the labels are known', () => {
    const conditions = [
      { label_id: ids.int, integer_min: 3 },
      { label_id: ids.int, text: '3' },
      { label_id: ids.sel },
      { label_id: ids.sel, selection_ids: [] },
      { label_id: ids.sel, integer_max: 3 },
      { label_id: ids.gone, integer_min: 1 },
      { label_id: ids.sel, is_empty: true },
    ];
    expect(effectiveConditions(conditions, labels)).toEqual([
      { label_id: ids.int, integer_min: 3 },
      { label_id: ids.int, text: '3' },
      { label_id: ids.sel, is_empty: true },
    ]);
    // Before the labels are known, every active one.
    expect(effectiveConditions(conditions, undefined)).toHaveLength(5);
  });

  it('counts each asked filter and clears them all but the order', () => {
    const params = {
      page: 3,
      sort: 'asc' as const,
      from: '2026-01-01',
      to: '2026-01-31',
      keyword: '院長',
      institution_ids: [ids.gone],
      doctor_attended: false,
      labels: [{ label_id: ids.int, integer_min: 1 }, { label_id: ids.sel }],
    };
    expect(furtherFilterCount(params, labels)).toBe(3);
    expect(activeFilterCount(params, labels)).toBe(5);
    // One end alone is an open-ended period, asked like any filter.
    expect(activeFilterCount({ page: 1, sort: 'desc', from: '2026-01-01' })).toBe(1);
    const cleared = { ...params, ...clearedFilters() };
    expect(activeFilterCount(cleared)).toBe(0);
    expect(cleared).toMatchObject({ page: 1, sort: 'asc' });
  });

  it('offers the labels of the chosen types, all when none is chosen', () => {
    const phone = { ...label(ids.gone, 'text'), communication_type: 'phone' as const };
    expect(labelsForTypes([...labels, phone], ['phone']).map((l) => l.id)).toEqual([ids.gone]);
    expect(labelsForTypes([...labels, phone], undefined)).toHaveLength(3);
  });
});
