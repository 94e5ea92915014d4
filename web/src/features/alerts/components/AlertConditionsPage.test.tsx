import { screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { AlertConditionsPage } from './AlertConditionsPage.tsx';

const condition = {
  id: '00000000-0000-4000-8000-000000000001',
  name: '紹介減少',
  type: 'referral',
  triggers: {
    referral_change_count: { direction: 'decrease', count: 2 },
    referral_change_rate: null,
    referral_count: null,
    referral_average: null,
    communication_visit: null,
  },
  filters: {
    prefecture: null,
    area: null,
    facility_type_ids: [],
    department_ids: [],
    tag_ids: [],
    referral_count: null,
    referral_average: null,
    communication_visit: 'all',
  },
  has_invalid: false,
  // 00:30 on December 1st in Japan.
  created_date: '2026-11-30T15:30:00Z',
};

describe('alert conditions', () => {
  it('writes the creation day in Japan as every other list does (2026/12/01)', async () => {
    const api = {
      listAlertConditions: vi.fn(async () => ({
        data: [condition],
        meta: { total_count: 1, page: 1, per_page: 20, total_pages: 1 },
      })),
      listTags: vi.fn(async () => ({ data: [], meta: { total_count: 0, page: 1, per_page: 100, total_pages: 0 } })),
    };
    renderInRouter(() => <AlertConditionsPage params={{ page: 1 }} onParamsChange={() => {}} isOwner={false} />, {
      api,
      paths: ['/alerts'],
    });
    expect(await screen.findByRole('cell', { name: '2026/12/01' })).toBeInTheDocument();
  });
});
