import { renderHook } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { ApiClient } from '../../api/api-client.ts';
import { cachedKeys } from '../../test/cached-keys.ts';
import { withDefaults } from '../data-analysis/analysis-periods.ts';
import { dataAnalysisQueries } from '../data-analysis/data-analysis.queries.ts';
import { defaultVisitOptions, visitChartQueries } from '../data-analysis/visit-charts.queries.ts';
import {
  ownTaskStaff,
  useCreateCommunication,
  useUpdateCommunication,
  type CommunicationCreateValues,
  type CommunicationUpdateValues,
} from './communications.queries.ts';

const f = withDefaults({}, '2026-11-29');
const institutionId = '00000000-0000-4000-8000-000000000009';

function setUp() {
  const api = {
    createForMedicalInstitution: vi.fn(async () => ({})),
    updateCommunication: vi.fn(async () => ({})),
  };
  const keys = {
    effectiveness: dataAnalysisQueries.effectiveness(api as unknown as ApiClient, f).queryKey,
    visits: visitChartQueries.visits(api as unknown as ApiClient, f, defaultVisitOptions).queryKey,
    interviews: visitChartQueries.doctorInterviewRates(api as unknown as ApiClient, f, defaultVisitOptions).queryKey,
    trend: dataAnalysisQueries.referralsTrend(api as unknown as ApiClient, f).queryKey,
    staffs: visitChartQueries.staffs(api as unknown as ApiClient).queryKey,
  };
  return cachedKeys(api, keys);
}

describe('communication writes', () => {
  it('make the visit charts and the effectiveness stale, not the referral figures', async () => {
    const { wrapper, invalidated } = setUp();
    const { result } = renderHook(() => useCreateCommunication(), { wrapper });
    expect(invalidated()).toEqual([]);
    await result.current.mutateAsync({
      institutionId,
      body: {} as CommunicationCreateValues,
      idempotencyKey: 'k1',
    });
    expect(invalidated()).toEqual(['effectiveness', 'interviews', 'visits']);
  });

  it('do so for an edit too', async () => {
    const { wrapper, invalidated } = setUp();
    const { result } = renderHook(() => useUpdateCommunication(), { wrapper });
    await result.current.mutateAsync({ id: institutionId, version: 1, body: {} as CommunicationUpdateValues });
    expect(invalidated()).toEqual(['effectiveness', 'interviews', 'visits']);
  });
});

describe('ownTaskStaff', () => {
  const staffs = [{ id: 'a' }, { id: 'b' }];
  it('is the writer when they are one of the staff', () => {
    expect(ownTaskStaff(staffs, 'b')).toBe('b');
  });
  it('is nobody for an account that is not staff (vendor support), or before the lists load', () => {
    expect(ownTaskStaff(staffs, 'support')).toBeNull();
    expect(ownTaskStaff(undefined, 'a')).toBeNull();
    expect(ownTaskStaff(staffs, undefined)).toBeNull();
  });
});
