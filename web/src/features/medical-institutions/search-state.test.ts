import { defaultParseSearch, defaultStringifySearch } from '@tanstack/react-router';
import { describe, expect, it } from 'vitest';
import {
  activeFilterCount,
  compactState,
  emptySearchState,
  exportColumnsOf,
  filtersOf,
  InstitutionSearchState,
  nextSortDirection,
  referralPeriodsOf,
  toConditions,
  toSearchBody,
} from './search-state.ts';

const tagA = '11111111-1111-4111-8111-111111111111';
const tagB = '22222222-2222-4222-8222-222222222222';
const label = '33333333-3333-4333-8333-333333333333';

const full = InstitutionSearchState.parse({
  keyword: 'ｼｽﾞｵｶ',
  prefectures: ['22'],
  cities: ['静岡市葵区'],
  facility_type_ids: ['hospital'],
  department_ids: ['01'],
  tag_groups: [
    { search_condition: 'include', logic: 'and', tag_ids: [tagA, tagB] },
    { search_condition: 'exclude', logic: 'or', tag_ids: [tagB] },
  ],
  running_statuses: ['open', 'suspended'],
  label_filters: [{ label_id: label, integer_min: 1, integer_max: 5 }],
  sort_by: 'referral_count',
  sort: 'desc',
  page: 3,
  per_page: 50,
  columns: ['name', 'tags'],
});

describe('partner management URL state', () => {
  it('reproduces the whole view from a shared link', () => {
    const href = defaultStringifySearch(compactState(full));
    const reopened = InstitutionSearchState.parse(defaultParseSearch(href));
    expect(reopened).toEqual(full);
  });

  it('keeps the link short: defaults and empty filters are left out', () => {
    const state = InstitutionSearchState.parse({ keyword: '', prefectures: [], page: 1, sort_by: 'kana' });
    expect(compactState(state)).toEqual({});
    expect(defaultStringifySearch(compactState(state))).toBe('');
  });

  it('opens a damaged link with only the damaged pieces reset', () => {
    const state = InstitutionSearchState.parse({
      keyword: '静岡',
      prefectures: ['99'],
      page: '-4',
      per_page: '37',
      sort_by: 'password',
      sort: 'sideways',
      tag_groups: 'not-a-list',
      running_statuses: ['open'],
      columns: ['name', 'secret'],
    });
    expect(state).toEqual({ ...emptySearchState, keyword: '静岡', running_statuses: ['open'] });
  });

  it('turns the state into the search body without empty pieces', () => {
    const body = toSearchBody(
      InstitutionSearchState.parse({
        keyword: '  病院 ',
        tag_groups: [
          { search_condition: 'include', logic: 'or', tag_ids: [] },
          { search_condition: 'exclude', logic: 'nor', tag_ids: [tagA] },
        ],
        include_no_phase: true,
        page: 2,
      }),
      '2026-11-30',
    );
    expect(body).toEqual({
      keyword: '病院',
      tag_filter_groups: [{ search_condition: 'exclude', logic: 'nor', tag_ids: [tagA] }],
      // The 紹介数 columns: this 年度 to today against the same days a year before.
      referral_period: { from: '2026-04-01', to: '2026-11-30' },
      comparison_referral_period: { from: '2025-04-01', to: '2025-11-30' },
      sort_by: 'kana',
      sort: 'asc',
      page: 2,
      per_page: 20,
    });
  });

  it('asks the referral figures of the chosen span, each against a year before, and keeps the span out of the filters', () => {
    expect(referralPeriodsOf('last_fiscal_year', '2026-11-30')).toEqual({
      referral_period: { from: '2025-04-01', to: '2026-03-31' },
      comparison_referral_period: { from: '2024-04-01', to: '2025-03-31' },
    });
    expect(referralPeriodsOf('last_12_months', '2026-03-05')).toEqual({
      referral_period: { from: '2025-03-01', to: '2026-02-28' },
      comparison_referral_period: { from: '2024-03-01', to: '2025-02-28' },
    });
    // In January the 年度 began the April before.
    expect(referralPeriodsOf(undefined, '2027-01-10').referral_period).toEqual({
      from: '2026-04-01',
      to: '2027-01-10',
    });
    const state = InstitutionSearchState.parse({ referral_span: 'last_12_months', keyword: '内科' });
    expect(state.referral_span).toBe('last_12_months');
    expect(InstitutionSearchState.parse({ referral_span: 'forever' }).referral_span).toBeUndefined();
    expect(activeFilterCount(state)).toBe(1);
    expect(filtersOf(state)).toEqual({ keyword: '内科' });
  });

  it('sends include_no_phase only together with phases', () => {
    const phase = '44444444-4444-4444-8444-444444444444';
    expect(toConditions(InstitutionSearchState.parse({ phase_master_ids: [phase], include_no_phase: true }))).toEqual({
      phase_master_ids: [phase],
      include_no_phase: true,
    });
  });

  it('counts the filters in use, not sort or paging', () => {
    expect(activeFilterCount(emptySearchState)).toBe(0);
    expect(activeFilterCount(full)).toBe(8);
  });

  it('exports the code first, then the columns on screen without duplicates', () => {
    expect(exportColumnsOf(['name', 'code', 'tags'])).toEqual(['code', 'name', 'tags']);
  });
});

describe('URL state lists', () => {
  it('match the contract enumerations they stand for', async () => {
    const contracts = await import('@renkei/contracts');
    const { sortKeys, runningStatuses, tagSearchConditions, filterGroupLogics } = await import('./search-state.ts');
    expect([...sortKeys]).toEqual(contracts.MedicalInstitutionSortKey.options);
    expect([...runningStatuses]).toEqual(contracts.RunningStatus.options);
    expect([...tagSearchConditions]).toEqual(contracts.TagSearchCondition.options);
    expect([...filterGroupLogics]).toEqual(contracts.FilterGroupLogic.options);
  });

  it('keeps only label conditions the contract accepts', () => {
    const ok = { label_id: label, date_from: '2024-02-29', selection_ids: [tagA], is_empty: false };
    expect(InstitutionSearchState.parse({ label_filters: [ok] }).label_filters).toEqual([ok]);
    for (const bad of [
      { label_id: label, date_to: '2026-02-30' },
      { label_id: 'x' },
      { label_id: label, integer_min: 1.5 },
    ])
      expect(InstitutionSearchState.parse({ label_filters: [ok, bad] }).label_filters).toBeUndefined();
  });
});

describe('last visit and referral figure filters in the URL', () => {
  const filters = {
    visited_period: { from: '2025-04-01', to: '2025-06-30' },
    not_visited_since: '2025-01-01',
    min_referral_count: 3,
    max_referral_count: 10,
    min_comparison_referral_count: 0,
    max_comparison_referral_count: 5,
    min_rate_of_referral_change: -20.5,
    max_rate_of_referral_change: 50,
  };

  it('survive a shared link and go to the search as the contract takes them', async () => {
    const state = InstitutionSearchState.parse(filters);
    const reopened = InstitutionSearchState.parse(defaultParseSearch(defaultStringifySearch(compactState(state))));
    expect(reopened).toEqual({ ...emptySearchState, ...filters });
    const body = toSearchBody(reopened, '2026-11-30');
    expect(body).toMatchObject(filters);
    const { MedicalInstitutionSearchBody } = await import('@renkei/contracts');
    expect(MedicalInstitutionSearchBody.safeParse(body).success).toBe(true);
  });

  it('drop what the search would refuse, each range on its own', () => {
    const state = InstitutionSearchState.parse({
      visited_period: { from: '2025-06-30', to: '2025-04-01' },
      not_visited_since: '2025-02-30',
      min_referral_count: -1,
      max_referral_count: 2.5,
      min_comparison_referral_count: 9,
      max_comparison_referral_count: 3,
      min_rate_of_referral_change: -150,
      max_rate_of_referral_change: '12',
    });
    expect(state).toEqual({ ...emptySearchState, max_rate_of_referral_change: 12 });
  });
});

describe('nextSortDirection', () => {
  it('sorts the figures and the last visit biggest first, names first to last, and turns the column sorted by', () => {
    const byKana = { sort_by: 'kana', sort: 'asc' } as const;
    expect(nextSortDirection('referral_count', byKana)).toBe('desc');
    expect(nextSortDirection('comparison_referral_count', byKana)).toBe('desc');
    expect(nextSortDirection('rate_of_referral_change', byKana)).toBe('desc');
    expect(nextSortDirection('last_visit_date', byKana)).toBe('desc');
    expect(nextSortDirection('name', { sort_by: 'referral_count', sort: 'desc' })).toBe('asc');
    expect(nextSortDirection('kana', byKana)).toBe('desc');
    expect(nextSortDirection('referral_count', { sort_by: 'referral_count', sort: 'desc' })).toBe('asc');
    expect(nextSortDirection('referral_count', { sort_by: 'referral_count', sort: 'asc' })).toBe('desc');
  });
});
