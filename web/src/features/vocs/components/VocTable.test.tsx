import { screen, within } from '@testing-library/react';
import type { VocListItem } from '@renkei/contracts';
import { describe, expect, it, vi } from 'vitest';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { VocTable } from './VocTable.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

describe('the VOC table', () => {
  it("links each communication to its own place on the institution's timeline (its day and anchor)", async () => {
    const voc = {
      id: id(1),
      title: '待ち時間が長い',
      medical_institution: { id: id(9), name: '駿河クリニック' },
      status: 'NOT_STARTED',
      priority: 'HIGH',
      voc_group: null,
      user: null,
      reported_date: '2026-11-20',
      communications: [{ id: id(5), communication_type: 'visit', acted_date: '2025-04-03' }],
    } as unknown as VocListItem;
    renderInRouter(() => <VocTable vocs={[voc]} onEdit={vi.fn()} onDelete={vi.fn()} />, {
      api: {},
      paths: ['/crms/$id/communications'],
    });
    const link = within(await screen.findByTestId('voc-table')).getByRole('link', { name: '2025/04/03 訪問' });
    expect(link).toHaveAttribute(
      'href',
      `/app/crms/${id(9)}/communications?page=1&sort=desc&from=2025-04-03&to=2025-04-03#communication-${id(5)}`,
    );
  });
});
