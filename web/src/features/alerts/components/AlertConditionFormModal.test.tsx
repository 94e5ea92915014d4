import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../api/api-errors.ts';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { testServices } from '../../../test/render-app.tsx';
import { AlertConditionFormModal } from './AlertConditionFormModal.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const oneTag = async () => ({
  data: [{ id: id(3), name: '重点' }],
  meta: { total_count: 1, page: 1, per_page: 100, total_pages: 1 },
});

function renderModal(
  onSubmit: (body: unknown) => Promise<unknown>,
  listTags: (...args: never[]) => Promise<unknown> = oneTag,
) {
  const api = {
    listMedicalInstitutionLabels: vi.fn(async () => []),
    listFacilityTypeGroups: vi.fn(async () => []),
    listDepartments: vi.fn(async () => []),
    listTags: vi.fn(listTags),
  };
  const services: AppServices = { ...testServices(), api: api as unknown as AppServices['api'] };
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <MantineProvider>
      <QueryClientProvider client={client}>
        <ServicesProvider value={services}>
          <AlertConditionFormModal opened onClose={() => {}} onSubmit={onSubmit} />
        </ServicesProvider>
      </QueryClientProvider>
    </MantineProvider>,
  );
}

describe('alert condition form', () => {
  it('checks locally with the contract: a name, at least one condition', async () => {
    const onSubmit = vi.fn(async () => {});
    renderModal(onSubmit);
    // The rate trigger is on by default; turning it off leaves no condition.
    await userEvent.click(screen.getByLabelText('前月比の紹介数の増減率'));
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    expect(await screen.findByText('アラート名を入力してください')).toBeInTheDocument();
    expect(screen.getByText('条件を1つ以上設定してください')).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('sends the triggers and filters as the API takes them; a 422 lands on its fields', async () => {
    const onSubmit = vi.fn(async () => {
      throw new ApiError(422, '入力内容に誤りがあります。', undefined, [
        { field: 'filters.tag_ids.0', message: 'タグが見つかりません' },
        { field: 'triggers.communication_visit', message: '訪問していない日数を入力してください' },
      ]);
    });
    renderModal(onSubmit);
    await userEvent.type(screen.getByLabelText(/アラート名/), '紹介減少と未訪問');
    await userEvent.click(screen.getByLabelText('訪問していない期間'));
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    expect(await screen.findByText('タグが見つかりません')).toBeInTheDocument();
    expect(screen.getByText('訪問していない日数を入力してください')).toBeInTheDocument();
    expect(onSubmit).toHaveBeenCalledWith(
      expect.objectContaining({
        name: '紹介減少と未訪問',
        type: 'referral',
        triggers: expect.objectContaining({
          referral_change_rate: { direction: 'decrease', rate: 50 },
          communication_visit: { days_without_visit: 90 },
          referral_count: null,
        }),
        filters: expect.objectContaining({ tag_ids: [], communication_visit: 'all', referral_count: null }),
      }),
    );
  });

  it('offers every tag of the tenant, past the first page of 100', async () => {
    const tags = Array.from({ length: 105 }, (_, i) => ({
      id: id(100 + i),
      name: `タグ${String(i).padStart(3, '0')}`,
    }));
    const listTags = vi.fn(async ({ query }: { query: { page: number; per_page: number } }) => ({
      data: tags.slice((query.page - 1) * query.per_page, query.page * query.per_page),
      meta: { total_count: tags.length, page: query.page, per_page: query.per_page, total_pages: 2 },
    }));
    const onSubmit = vi.fn(async () => {});
    renderModal(onSubmit, listTags as never);
    await userEvent.type(screen.getByLabelText(/アラート名/), 'タグ');
    await userEvent.type(screen.getByLabelText('タグ（いずれかが付いた医療機関）', { selector: 'input' }), 'タグ104');
    await userEvent.click(await screen.findByRole('option', { name: 'タグ104', hidden: true }));
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    expect(onSubmit).toHaveBeenCalledWith(
      expect.objectContaining({ filters: expect.objectContaining({ tag_ids: [id(204)] }) }),
    );
  });

  it('takes whole counts only, up to the contract bound', async () => {
    renderModal(vi.fn(async () => {}));
    const min = screen.getByLabelText('前月の紹介数（下限）');
    await userEvent.type(min, '1.5');
    expect(min).toHaveValue('15');
    // The first （上限） is the count range's (the second, the average's).
    const max = screen.getAllByLabelText('（上限）')[0]!;
    await userEvent.type(max, '3000000000');
    await userEvent.tab();
    expect(max).toHaveValue('100000');
  });
});
