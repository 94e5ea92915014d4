import { screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { Email, EmailStats } from '@renkei/contracts';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { EmailReportsPage } from './EmailReportsPage.tsx';

const id = '00000000-0000-4000-8000-000000000001';

const stats = (over: Partial<EmailStats>): EmailStats => ({
  destination_count: 3,
  invalid_destination_count: 0,
  delivered_count: 0,
  opened_count: 0,
  clicked_count: 0,
  delivered_rate: null,
  opened_rate: null,
  clicked_rate: null,
  in_doubt_count: 0,
  ...over,
});

/** The count and the rate of each of 配信, 開封 and クリック, as the report's figures read. */
async function figures(shown: EmailStats): Promise<(string | null)[]> {
  const api = {
    getEmail: vi.fn(async () => ({ id, title: 'お知らせ' }) as Email),
    getEmailStats: vi.fn(async () => shown),
    listEmailReports: vi.fn(async () => ({
      data: [],
      meta: { total_count: 0, page: 1, per_page: 50, total_pages: 0 },
    })),
    getEmailTimeline: vi.fn(async () => ({ sent_at: null, data: [] })),
  };
  const view = renderInRouter(() => <EmailReportsPage id={id} page={1} filter={undefined} onChange={vi.fn()} />, {
    api,
    paths: ['/emails'],
  });
  await screen.findByTestId('email-stat-配信');
  const texts = ['配信', '開封', 'クリック'].map((label) => screen.getByTestId(`email-stat-${label}`).textContent);
  view.unmount();
  return texts;
}

describe('email reports page', () => {
  it('shows the rates as the list does, and a dash for each rate with nothing to divide by', async () => {
    // The figures of EmailsPage.test.tsx: the list shows 100%, 33.3% and 0% for the first, 0% — — for the second.
    expect(
      await figures(
        stats({ delivered_count: 3, opened_count: 1, delivered_rate: 1, opened_rate: 0.333, clicked_rate: 0 }),
      ),
    ).toEqual(['3100%', '133.3%', '00%']);
    expect(await figures(stats({ delivered_rate: 0 }))).toEqual(['00%', '0—', '0—']);
    // Not sent yet: no rate at all, the delivered one included.
    expect(await figures(stats({}))).toEqual(['0—', '0—', '0—']);
  });
});
