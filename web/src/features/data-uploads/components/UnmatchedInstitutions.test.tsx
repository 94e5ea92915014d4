import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../api/api-errors.ts';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { testServices } from '../../../test/render-app.tsx';
import { toast } from '../../../app/toast.ts';
import { UnmatchedInstitutions } from './UnmatchedInstitutions.tsx';

const clinic = '00000000-0000-4000-8000-000000000009';
const row = {
  institution_code: null,
  institution_name: '不明医院',
  referral_count: 2,
  reverse_referral_count: 1,
  last_date: '2024-06-01',
};

type Found = { id: string; name: string; address: string | null };

function renderList(
  matchInstitution: (args: { body: unknown }) => Promise<unknown>,
  found: Found[] = [{ id: clinic, name: 'みなと内科', address: '静岡県静岡市葵区追手町1' }],
) {
  const api = {
    listUnmatchedInstitutions: vi.fn(async () => ({
      data: [row],
      meta: { total_count: 1, page: 1, per_page: 20, total_pages: 1 },
    })),
    searchMedicalInstitutions: vi.fn(async () => ({
      data: found,
      meta: { total_count: found.length, page: 1, per_page: 20, total_pages: 1 },
    })),
    matchInstitution: vi.fn(matchInstitution),
  };
  return renderWithApi(api);
}

/** The list over the given API calls, which it returns so a test can read its mocks. */
function renderWithApi<A extends object>(api: A): A {
  const services: AppServices = { ...testServices(), api: api as unknown as AppServices['api'] };
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <MantineProvider>
      <QueryClientProvider client={client}>
        <ServicesProvider value={services}>
          <UnmatchedInstitutions />
        </ServicesProvider>
      </QueryClientProvider>
    </MantineProvider>,
  );
  return api;
}

async function pickClinic() {
  await userEvent.click(await screen.findByRole('button', { name: '不明医院を照合' }));
  await userEvent.type(await screen.findByPlaceholderText('名称・カナ・住所で検索'), 'みなと');
  await userEvent.click(await screen.findByRole('option', { name: /^みなと内科/, hidden: true }));
}

describe('unmatched institutions', () => {
  it('lists them and matches one to the institution picked, sending its code and name as listed', async () => {
    const api = renderList(async ({ body }) => body);
    expect(await screen.findByText('不明医院')).toBeInTheDocument();
    // The last date as every other date of the app reads.
    expect(screen.getByText('2024/06/01')).toBeInTheDocument();
    await pickClinic();
    expect(screen.getByTestId('picked-institution')).toHaveTextContent('みなと内科');
    await userEvent.click(screen.getByTestId('match-institution-save'));
    await waitFor(() =>
      expect(api.matchInstitution).toHaveBeenCalledWith({
        body: { institution_code: null, institution_name: '不明医院', medical_institution_id: clinic },
      }),
    );
    // The list is read again: the matched rows have left it.
    await waitFor(() => expect(api.listUnmatchedInstitutions).toHaveBeenCalledTimes(2));
  });

  it('asks for an institution before sending, and shows a 422 in the dialog', async () => {
    const api = renderList(async () => {
      throw new ApiError(422, '入力内容を確認してください', undefined, [
        { field: 'institution_name', message: '医療機関コードか医療機関名を指定してください' },
      ]);
    });
    await userEvent.click(await screen.findByRole('button', { name: '不明医院を照合' }));
    await userEvent.click(await screen.findByTestId('match-institution-save'));
    expect(await screen.findByText('医療機関を選んでください')).toBeInTheDocument();
    expect(api.matchInstitution).not.toHaveBeenCalled();
    await userEvent.type(screen.getByPlaceholderText('名称・カナ・住所で検索'), 'みなと');
    await userEvent.click(await screen.findByRole('option', { name: /^みなと内科/, hidden: true }));
    await userEvent.click(screen.getByTestId('match-institution-save'));
    expect(await screen.findByText('医療機関コードか医療機関名を指定してください')).toBeInTheDocument();
  });

  it('tells institutions of the same name apart by their address', async () => {
    const other = '00000000-0000-4000-8000-000000000010';
    const api = renderList(
      async ({ body }) => body,
      [
        { id: clinic, name: 'みなと内科', address: '静岡県静岡市葵区追手町1' },
        { id: other, name: 'みなと内科', address: '静岡県浜松市中央区元城町2' },
      ],
    );
    await userEvent.click(await screen.findByRole('button', { name: '不明医院を照合' }));
    await userEvent.type(await screen.findByPlaceholderText('名称・カナ・住所で検索'), 'みなと');
    await userEvent.click(
      await screen.findByRole('option', { name: /みなと内科\s*静岡県浜松市中央区元城町2/, hidden: true }),
    );
    await userEvent.click(screen.getByTestId('match-institution-save'));
    await waitFor(() =>
      expect(api.matchInstitution).toHaveBeenCalledWith({
        body: { institution_code: null, institution_name: '不明医院', medical_institution_id: other },
      }),
    );
  });
});

describe('setting unmatched institutions aside', () => {
  function renderWithDismissals() {
    const aside = new Set<string>();
    const unknown = { ...row, institution_name: '不明' };
    const api = {
      listUnmatchedInstitutions: vi.fn(async ({ query }: { query: { dismissed: boolean } }) => {
        const data = [row, unknown].filter((r) => aside.has(r.institution_name) === query.dismissed);
        return { data, meta: { total_count: data.length, page: 1, per_page: 20, total_pages: data.length ? 1 : 0 } };
      }),
      dismissUnmatchedInstitution: vi.fn(
        async ({ body }: { body: { institution_name: string; dismissed: boolean } }) => {
          if (body.dismissed) aside.add(body.institution_name);
          else aside.delete(body.institution_name);
          return body;
        },
      ),
    };
    return renderWithApi(api);
  }

  it('takes 「不明」 off the list, shows it under 照合しないもの, and puts it back', async () => {
    const success = vi.spyOn(toast, 'success').mockImplementation(() => {});
    const api = renderWithDismissals();
    await userEvent.click(await screen.findByRole('button', { name: '不明を照合しない' }));
    expect(api.dismissUnmatchedInstitution).toHaveBeenCalledWith({
      body: { institution_code: null, institution_name: '不明', dismissed: true },
    });
    await waitFor(() => expect(screen.queryByText('不明')).toBeNull());
    expect(screen.getByText('不明医院')).toBeInTheDocument();
    expect(success).toHaveBeenCalledWith('「不明」を照合しないものにしました。「照合しないもの」から戻せます。');

    await userEvent.click(screen.getByText('照合しないもの'));
    expect(await screen.findByText('不明')).toBeInTheDocument();
    expect(screen.queryByText('不明医院')).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: '不明を照合待ちに戻す' }));
    expect(await screen.findByTestId('unmatched-empty')).toHaveTextContent('照合しないことにした記載はありません。');
    await userEvent.click(screen.getByText('照合待ち'));
    expect(await screen.findByText('不明')).toBeInTheDocument();
    success.mockRestore();
  });
});
