import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Communication } from '@renkei/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { testUser } from '../../../test/render-app.tsx';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { InstitutionRecentCommunications } from './InstitutionRecentCommunications.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const clinic = { id: id(9), name: '駿河クリニック' };
const withCommunications = testUser({ features: ['medical_institutions_search', 'communications'] });

const record = (n: number, patch: Partial<Communication> = {}): Communication =>
  ({
    id: id(n),
    communication_type: 'visit',
    acted_date: `2026-11-${String(20 - n).padStart(2, '0')}`,
    story: `\n  院長と面談${n}  \n紹介の御礼`,
    user: { id: id(30), name: '佐藤' },
    medical_institution: clinic,
    ...patch,
  }) as Communication;

afterEach(() => localStorage.clear());

function renderCard(
  records: Communication[],
  { compact = false, total = records.length, user = withCommunications } = {},
) {
  const api = {
    searchForMedicalInstitution: vi.fn(async () => ({
      data: records,
      meta: { total_count: total, page: 1, per_page: 5, total_pages: Math.ceil(total / 5) },
    })),
    getSummary: vi.fn(async () => ({ id: clinic.id, name: clinic.name })),
    // What the record form reads when it opens.
    listCommunicationLabels: vi.fn(async () => []),
    listStaffs: vi.fn(async () => []),
    listOwnDepartments: vi.fn(async () => []),
  };
  const view = renderInRouter(() => <InstitutionRecentCommunications id={clinic.id} compact={compact} />, {
    api,
    user,
    paths: ['/crms/$id/communications'],
  });
  return { api, ...view };
}

describe("the institution's recent communications card", () => {
  it('shows the five latest with type, date, staff and first line, each linking to its place on the timeline', async () => {
    const records = [1, 2, 3, 4, 5].map((n) => record(n, n === 2 ? { communication_type: 'phone', user: null } : {}));
    const { api } = renderCard(records, { total: 12 });
    const card = await screen.findByTestId('institution-recent-communications');
    expect(within(card).getByText('最近のコミュニケーション（全12件）')).toBeInTheDocument();
    expect(api.searchForMedicalInstitution).toHaveBeenCalledWith(
      expect.objectContaining({ params: { id: clinic.id }, body: { page: 1, sort: 'desc', per_page: 5 } }),
    );
    const rows = within(card).getAllByTestId('institution-recent-communication');
    expect(rows).toHaveLength(5);
    expect(rows[0]).toHaveTextContent('訪問2026/11/19佐藤院長と面談1');
    expect(rows[0]).not.toHaveTextContent('紹介の御礼');
    expect(rows[1]).toHaveTextContent('電話2026/11/18院長と面談2');
    expect(rows[0]).toHaveAttribute(
      'href',
      `/app/crms/${clinic.id}/communications?page=1&sort=desc#communication-${id(1)}`,
    );
    expect(within(card).getByRole('link', { name: 'すべて見る' })).toHaveAttribute(
      'href',
      `/app/crms/${clinic.id}/communications?page=1&sort=desc`,
    );
  });

  it('with nothing recorded, says how to record one and opens the record form on the institution', async () => {
    renderCard([]);
    const card = await screen.findByTestId('institution-recent-communications');
    expect(within(card).getByText(/まだ記録がありません。/)).toBeInTheDocument();
    const button = within(card).getByRole('button', { name: '活動を記録' });
    await waitFor(() => expect(button).toBeEnabled());
    await userEvent.click(button);
    const dialog = await screen.findByRole('dialog', { name: '活動の記録' });
    expect(await within(dialog).findByTestId('picked-institution')).toHaveTextContent(clinic.name);
  });

  it('offers 「活動を記録」 beside the records too, opening the same form on the institution', async () => {
    renderCard([record(1), record(2)], { total: 2 });
    const card = await screen.findByTestId('institution-recent-communications');
    expect(within(card).getAllByTestId('institution-recent-communication')).toHaveLength(2);
    expect(within(card).queryByText(/まだ記録がありません。/)).not.toBeInTheDocument();
    const button = within(card).getByRole('button', { name: '活動を記録' });
    await waitFor(() => expect(button).toBeEnabled());
    await userEvent.click(button);
    const dialog = await screen.findByRole('dialog', { name: '活動の記録' });
    expect(await within(dialog).findByTestId('picked-institution')).toHaveTextContent(clinic.name);
  });

  it('prints as plain text on the partner chart: no links or buttons', async () => {
    renderCard([record(1), record(2, { user: null })], { compact: true });
    const block = await screen.findByTestId('institution-recent-communications');
    expect(within(block).queryByRole('link')).not.toBeInTheDocument();
    expect(within(block).queryByRole('button')).not.toBeInTheDocument();
    expect(within(block).getByText('2026/11/19 訪問（佐藤） 院長と面談1')).toBeInTheDocument();
    expect(within(block).getByText('2026/11/18 訪問 院長と面談2')).toBeInTheDocument();
  });

  it('says なし on the partner chart when nothing is recorded', async () => {
    renderCard([], { compact: true });
    expect(await screen.findByTestId('institution-recent-communications')).toHaveTextContent(/^なし$/);
  });

  it('shows nothing, and asks nothing, where the tenant does not have communications', async () => {
    const { api, router } = renderCard([record(1)], { user: testUser({ features: ['medical_institutions_search'] }) });
    await waitFor(() => expect(router.state.status).toBe('idle'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.queryByTestId('institution-recent-communications')).not.toBeInTheDocument();
    expect(api.searchForMedicalInstitution).not.toHaveBeenCalled();
  });
});
