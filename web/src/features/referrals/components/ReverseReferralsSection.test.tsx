import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { ListedReverseReferral } from '@renkei/contracts';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { testServices } from '../../../test/render-app.tsx';
import { ReverseReferralsSection } from './ReverseReferralsSection.tsx';

const clinic = '00000000-0000-4000-8000-000000000009';
const surgery = { id: '00000000-0000-4000-8000-000000000031', name: '外科' };
const row = (n: number, patch: Partial<ListedReverseReferral> = {}): ListedReverseReferral => ({
  id: `00000000-0000-4000-8000-0000000001${String(n).padStart(2, '0')}`,
  medical_institution_id_from: null,
  medical_institution_id_to: clinic,
  specialty_id: null,
  specialty: null,
  reverse_referral_date: '2026-05-01',
  patient_id: `P${n}`,
  control_id: null,
  importing_log_id: '00000000-0000-4000-8000-000000000099',
  entered_by_hand: false,
  ...patch,
});

function renderSection(pages: ListedReverseReferral[][]) {
  const api = {
    listOwnDepartments: vi.fn(async () => [surgery]),
    listMedicalInstitutionReverseReferrals: vi.fn(async ({ query }: { query: { page: number } }) => ({
      data: pages[query.page - 1] ?? [],
      meta: {
        total_count: pages.flat().length,
        page: query.page,
        per_page: 20,
        total_pages: pages.length,
      },
    })),
    updateMedicalInstitutionReverseReferral: vi.fn(async () => ({})),
    deleteMedicalInstitutionReverseReferral: vi.fn(async () => null),
  };
  const services: AppServices = { ...testServices(), api: api as unknown as AppServices['api'] };
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <MantineProvider>
      <QueryClientProvider client={client}>
        <ServicesProvider value={services}>
          <ReverseReferralsSection id={clinic} />
        </ServicesProvider>
      </QueryClientProvider>
    </MantineProvider>,
  );
  return api;
}

describe('reverse referrals section', () => {
  it('lists the reverse referrals page by page; only hand entries offer correction and withdrawal', async () => {
    const hand = row(1, {
      entered_by_hand: true,
      importing_log_id: null,
      specialty_id: surgery.id,
      specialty: surgery,
    });
    const imported = row(2, { control_id: 'K-7' });
    const api = renderSection([[hand, imported], [row(3)]]);
    expect(await screen.findByText('逆紹介一覧（3件）')).toBeInTheDocument();
    const rows = screen.getAllByTestId('reverse-referral-row');
    expect(rows).toHaveLength(2);
    expect(within(rows[0]!).getByText('外科')).toBeInTheDocument();
    expect(within(rows[0]!).getByText('手入力')).toBeInTheDocument();
    expect(within(rows[0]!).getByRole('button', { name: '削除' })).toBeInTheDocument();
    expect(within(rows[1]!).getByText('K-7')).toBeInTheDocument();
    expect(within(rows[1]!).queryByRole('button', { name: '削除' })).toBeNull();

    // The page's print shows the rows, not the page controls.
    expect(screen.getByRole('button', { name: '2' }).closest('[data-print-hide]')).not.toBeNull();
    await userEvent.click(screen.getByRole('button', { name: '2' }));
    await waitFor(() => expect(screen.getByText('P3')).toBeInTheDocument());
    expect(api.listMedicalInstitutionReverseReferrals).toHaveBeenLastCalledWith(
      expect.objectContaining({ params: { id: clinic }, query: { page: 2, per_page: 20 } }),
    );
  });

  it('corrects a hand entry with its whole fields and withdraws one after confirmation', async () => {
    const hand = row(1, {
      entered_by_hand: true,
      importing_log_id: null,
      specialty_id: surgery.id,
      specialty: surgery,
    });
    const api = renderSection([[hand]]);
    await userEvent.click(await screen.findByRole('button', { name: '編集' }));
    const dialog = await screen.findByRole('dialog', { name: '手入力した逆紹介の修正' });
    const patient = within(dialog).getByLabelText(/患者ID/);
    await userEvent.clear(patient);
    await userEvent.type(patient, 'P9');
    await userEvent.click(within(dialog).getByTestId('referral-entry-save'));
    await waitFor(() =>
      expect(api.updateMedicalInstitutionReverseReferral).toHaveBeenCalledWith({
        params: { medical_institution_id: clinic, id: hand.id },
        body: { reverse_referral_date: '2026-05-01', patient_id: 'P9', specialty_id: surgery.id },
      }),
    );

    await userEvent.click(screen.getByRole('button', { name: '削除' }));
    expect(await screen.findByText('2026-05-01 の逆紹介（患者ID P1）を削除しますか？')).toBeInTheDocument();
    await userEvent.click(screen.getByTestId('reverse-referral-delete-confirm'));
    await waitFor(() =>
      expect(api.deleteMedicalInstitutionReverseReferral).toHaveBeenCalledWith({
        params: { medical_institution_id: clinic, id: hand.id },
      }),
    );
  });
});
