import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import type { ApiClient } from '../../api/api-client.ts';
import { ApiError } from '../../api/api-errors.ts';
import { actionListQueries } from './action-lists.queries.ts';

const id = '00000000-0000-4000-8000-000000000001';
const params = { page: 2, per_page: 50, status: 'all' as const };

function client(error: unknown) {
  const api = {
    getActionList: vi.fn(async () => {
      throw error;
    }),
    listItems: vi.fn(async () => {
      throw error;
    }),
  } as unknown as ApiClient;
  return { api, queries: new QueryClient({ defaultOptions: { queries: { retry: false } } }) };
}

describe('action list queries', () => {
  it('read a deleted list as null and its items as none, so deleting the selected list reports no failure', async () => {
    const { api, queries } = client(new ApiError(404, 'Not Found'));
    expect(await queries.fetchQuery(actionListQueries.detail(api, id))).toBeNull();
    expect(await queries.fetchQuery(actionListQueries.items(api, id, params))).toEqual({
      data: [],
      meta: { total_count: 0, page: 2, per_page: 50, total_pages: 0 },
    });
  });

  it('let any other failure through', async () => {
    const { api, queries } = client(new ApiError(500, 'Internal'));
    await expect(queries.fetchQuery(actionListQueries.detail(api, id))).rejects.toMatchObject({ status: 500 });
    await expect(queries.fetchQuery(actionListQueries.items(api, id, params))).rejects.toMatchObject({ status: 500 });
  });
});
