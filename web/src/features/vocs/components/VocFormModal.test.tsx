import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../api/api-errors.ts';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { setViewportWidth, testServices } from '../../../test/render-app.tsx';
import { VocFormModal, type VocPreset } from './VocFormModal.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const visit = {
  id: id(5),
  communication_type: 'visit',
  acted_date: '2026-03-30',
  story: '院長と面談',
};

function renderModal(
  onSubmit: (body: unknown) => Promise<unknown>,
  preset: VocPreset | null,
  onClose: () => void = () => {},
) {
  const view = (p: VocPreset | null) => (
    <MantineProvider>
      <QueryClientProvider client={client}>
        <ServicesProvider value={services}>
          <VocFormModal
            opened
            voc={null}
            preset={p}
            groups={[{ id: id(7), name: '紹介・返書' }]}
            onClose={onClose}
            onSubmit={onSubmit}
          />
        </ServicesProvider>
      </QueryClientProvider>
    </MantineProvider>
  );
  const api = {
    listStaffs: vi.fn(async () => []),
    searchForMedicalInstitution: vi.fn(async () => ({
      data: [visit],
      meta: { total_count: 1, page: 1, per_page: 50, total_pages: 1 },
    })),
    searchMedicalInstitutions: vi.fn(async () => ({ data: [], meta: {} })),
  };
  const services: AppServices = { ...testServices(), api: api as unknown as AppServices['api'] };
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const { rerender } = render(view(preset));
  return { api, rerender: (p: VocPreset | null) => rerender(view(p)) };
}

const preset: VocPreset = { institution: { id: id(9), name: '駿河クリニック' }, communicationIds: [id(5)] };

describe('voc form', () => {
  afterEach(() => setViewportWidth(1280));

  it('asks before closing over what was typed; closes at once when nothing was', async () => {
    const onClose = vi.fn();
    renderModal(vi.fn(), preset, onClose);
    await userEvent.click(await screen.findByRole('button', { name: '閉じる' }));
    expect(onClose).toHaveBeenCalledTimes(1);
    await userEvent.type(screen.getByLabelText(/タイトル/), 'MRIの予約が取りにくい');
    await userEvent.click(screen.getByRole('button', { name: 'キャンセル' }));
    expect(await screen.findByText('保存していない変更があります。変更を破棄して閉じますか？')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: '編集を続ける' }));
    expect(screen.getByLabelText(/タイトル/)).toHaveValue('MRIの予約が取りにくい');
    expect(onClose).toHaveBeenCalledTimes(1);
    await userEvent.click(screen.getByRole('button', { name: '閉じる' }));
    await userEvent.click(await screen.findByTestId('confirm-discard-edit'));
    expect(onClose).toHaveBeenCalledTimes(2);
  });

  it('takes the whole screen on a phone, a dialog on a desktop', async () => {
    renderModal(vi.fn(), preset);
    expect(await screen.findByRole('dialog', { name: 'VOCを登録' })).not.toHaveAttribute('data-full-screen');
    setViewportWidth(390);
    await waitFor(() =>
      expect(screen.getByRole('dialog', { name: 'VOCを登録' })).toHaveAttribute('data-full-screen', 'true'),
    );
  });

  it('checks locally with the contract: no institution, no title', async () => {
    const onSubmit = vi.fn(async () => {});
    renderModal(onSubmit, null);
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    expect(await screen.findByText('医療機関を選んでください')).toBeInTheDocument();
    expect(screen.getByText('タイトルを入力してください')).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('sends the VOC linked to the communication it was opened from; a 422 lands on its fields', async () => {
    const onSubmit = vi.fn(async () => {
      throw new ApiError(422, '入力内容に誤りがあります。', undefined, [
        { field: 'communication_ids.0', message: '活動記録が見つかりません' },
        { field: 'voc_group_id', message: 'VOCグループが見つかりません' },
      ]);
    });
    renderModal(onSubmit, preset);
    expect(screen.getByTestId('picked-institution')).toHaveTextContent('駿河クリニック');
    expect(screen.queryByRole('button', { name: '変更' })).not.toBeInTheDocument();
    await userEvent.type(screen.getByLabelText(/タイトル/), '返書が遅い');
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    expect(await screen.findByText('活動記録が見つかりません')).toBeInTheDocument();
    expect(screen.getByText('VOCグループが見つかりません')).toBeInTheDocument();
    expect(onSubmit).toHaveBeenCalledWith(
      expect.objectContaining({
        medical_institution_id: id(9),
        title: '返書が遅い',
        status: 'NOT_STARTED',
        priority: 'MIDDLE',
        communication_ids: [id(5)],
        voc_group_id: null,
      }),
    );
  });

  it('keeps what was typed when the card that opened it renders again', async () => {
    const { rerender } = renderModal(async () => {}, preset);
    await userEvent.type(screen.getByLabelText(/タイトル/), '予約が取りにくい');
    rerender({ ...preset, communicationIds: [id(5)] });
    expect(screen.getByLabelText(/タイトル/)).toHaveValue('予約が取りにくい');
  });

  it('shows no field message for a failure that is not a 422', async () => {
    renderModal(async () => {
      throw new ApiError(500, '一時的なエラーが発生しました。');
    }, preset);
    await userEvent.type(screen.getByLabelText(/タイトル/), 'x');
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    expect(screen.queryByText('一時的なエラーが発生しました。')).not.toBeInTheDocument();
  });
});
