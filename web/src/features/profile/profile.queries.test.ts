import { renderHook } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { ApiClient } from '../../api/api-client.ts';
import { cachedKeys } from '../../test/cached-keys.ts';
import { communicationQueries } from '../communications/communications.queries.ts';
import { currentUserQueries } from '../current-user/current-user.queries.ts';
import { visitChartQueries } from '../data-analysis/visit-charts.queries.ts';
import { useUpdateProfile } from './profile.queries.ts';

describe('saving the profile', () => {
  it('makes the header and the staff pickers stale: the new name shows everywhere at once', async () => {
    const profile = { username: '新しい 名前', own_department_id: null, notification_settings: {} };
    const api = { updateProfile: vi.fn(async () => profile) };
    const typed = api as unknown as ApiClient;
    const { wrapper, invalidated } = cachedKeys(api, {
      currentUser: currentUserQueries.all,
      communicationStaffs: communicationQueries.staffs(typed).queryKey,
      visitChartStaffs: visitChartQueries.staffs(typed).queryKey,
      communications: [...communicationQueries.all, 'search', {}],
    });
    const { result } = renderHook(() => useUpdateProfile(), { wrapper });
    await result.current.mutateAsync(profile as never);
    expect(invalidated()).toEqual(['communicationStaffs', 'currentUser', 'visitChartStaffs']);
  });
});
