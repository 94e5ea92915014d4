import { describe, expect, it } from 'vitest';
import { communicationsSearch } from './communications-search.ts';

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
