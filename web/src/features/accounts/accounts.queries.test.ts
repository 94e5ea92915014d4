import { renderHook } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { ApiClient } from '../../api/api-client.ts';
import { ApiError, fieldErrorsOf } from '../../api/api-errors.ts';
import { cachedKeys } from '../../test/cached-keys.ts';
import { communicationQueries } from '../communications/communications.queries.ts';
import { currentUserQueries } from '../current-user/current-user.queries.ts';
import { visitChartQueries } from '../data-analysis/visit-charts.queries.ts';
import { accountQueries, useCreateAccount, useDeleteAccount, useUpdateAccount } from './accounts.queries.ts';

const taken = new ApiError(409, 'このメールアドレスは既に使用されています。', undefined, [
  { field: 'email', message: 'このメールアドレスは既に使用されています。' },
]);

function setup(api: Partial<Record<keyof ApiClient, unknown>>) {
  const typed = api as unknown as ApiClient;
  return cachedKeys(api, {
    accounts: accountQueries.list(typed, { page: 1, per_page: 20 }).queryKey,
    currentUser: currentUserQueries.all,
    communicationStaffs: communicationQueries.staffs(typed).queryKey,
    visitChartStaffs: visitChartQueries.staffs(typed).queryKey,
    communications: [...communicationQueries.all, 'search', {}],
  });
}

const body = { username: '山田 太郎', email: 'yamada@example.jp', role: 'member' as const };

describe('account mutations', () => {
  it('make the staff pickers and the signed-in user stale with the list: a change shows everywhere at once', async () => {
    for (const [hook, call, variables] of [
      [useCreateAccount, 'createAccount', body],
      [useUpdateAccount, 'updateAccount', { id: 'a', version: 0, body }],
      [useDeleteAccount, 'deleteAccount', { id: 'a', version: 0 }],
    ] as const) {
      const { wrapper, invalidated } = setup({ [call]: vi.fn(async () => ({})) });
      const { result } = renderHook(() => (hook as () => { mutateAsync: (v: unknown) => Promise<unknown> })(), {
        wrapper,
      });
      await result.current.mutateAsync(variables);
      expect(invalidated(), call).toEqual(['accounts', 'communicationStaffs', 'currentUser', 'visitChartStaffs']);
    }
  });

  it('answer an email or login ID already in use (409) as the field error a form keeps its input for', async () => {
    const { wrapper } = setup({ createAccount: vi.fn(async () => Promise.reject(taken)) });
    const { result } = renderHook(() => useCreateAccount(), { wrapper });
    const error = await result.current.mutateAsync(body).catch((e: unknown) => e);
    expect(fieldErrorsOf(error)).toEqual({ email: 'このメールアドレスは既に使用されています。' });

    const { wrapper: w2 } = setup({ updateAccount: vi.fn(async () => Promise.reject(taken)) });
    const update = renderHook(() => useUpdateAccount(), { wrapper: w2 });
    const editError = await update.result.current.mutateAsync({ id: 'a', version: 0, body }).catch((e: unknown) => e);
    expect(fieldErrorsOf(editError)).toEqual({ email: 'このメールアドレスは既に使用されています。' });
  });

  it('leave any other 409 as it is', async () => {
    const other = new ApiError(409, '他の人が更新しました。');
    const { wrapper } = setup({ createAccount: vi.fn(async () => Promise.reject(other)) });
    const { result } = renderHook(() => useCreateAccount(), { wrapper });
    await expect(result.current.mutateAsync(body)).rejects.toBe(other);
  });
});
