import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider, queryOptions } from '@tanstack/react-query';
import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { endpoints, type ImportRecord, type ImportStatus } from '@renkei/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { testServices } from '../../../test/render-app.tsx';
import { stubXhr } from '../../../test/fake-xhr.ts';
import { ImportPage } from './ImportPage.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const record = (n: number, status: ImportStatus): ImportRecord => ({
  id: id(n),
  filename: `file-${n}.csv`,
  status,
  error_messages: [],
  imported_row_count: 0,
  failed_row_count: 0,
  unprocessed_row_count: 0,
  abortion_row_number: null,
  // Later numbers are newer uploads, as the history lists them (newest first).
  created_at: `2026-11-29T10:${String(n).padStart(2, '0')}:00.000Z`,
  created_by: null,
  import_type: 'medical_institution_label_value',
});

const listKey = ['some-imports'] as const;
const staleKey = ['changed-by-imports'] as const;

/**
 * The page over a history of two pages whose answers the test sets (`pages`); `poll()` is the list's
 * next poll. `cached`: page 1 as an earlier visit left it in the cache.
 */
function renderPage(pages: Record<number, ImportRecord[]>, cached?: ImportRecord[]) {
  const listImports = vi.fn(async (page: number) => ({
    data: pages[page] ?? [],
    meta: { total_count: 40, page, per_page: 20, total_pages: 2 },
  }));
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  client.setQueryData(staleKey, { cached: true });
  if (cached)
    client.setQueryData([...listKey, 1], {
      data: cached,
      meta: { total_count: 40, page: 1, per_page: 20, total_pages: 2 },
    });
  const invalidate = vi.spyOn(client, 'invalidateQueries');
  const onImportEnded = vi.fn();
  const api = { transport: { lastPosition: () => null } };
  const services: AppServices = { ...testServices(), api: api as unknown as AppServices['api'] };
  render(
    <MantineProvider>
      <ServicesProvider value={services}>
        <QueryClientProvider client={client}>
          <ImportPage
            title="インポート"
            prepareTitle="1. ファイルを用意"
            modes={[
              {
                value: 'only',
                label: 'インポート',
                endpoint: endpoints.importLabelValues,
                uploadLabel: 'インポート',
                instructions: null,
              },
            ]}
            listQuery={(page) =>
              queryOptions({ queryKey: [...listKey, page] as const, queryFn: () => listImports(page) })
            }
            listKey={listKey}
            staleAfterImport={staleKey}
            onImportEnded={onImportEnded}
          />
        </QueryClientProvider>
      </ServicesProvider>
    </MantineProvider>,
  );
  const poll = () => act(() => client.refetchQueries({ queryKey: listKey, type: 'active' }));
  const madeStale = () => invalidate.mock.calls.filter(([filters]) => filters?.queryKey === staleKey).length;
  return { listImports, poll, madeStale, onImportEnded, client };
}

const shown = (n: number) => screen.findByText(`file-${n}.csv`);

afterEach(() => vi.unstubAllGlobals());

describe('import page', () => {
  it('makes what imports change stale, and says so, once when an import seen running ends', async () => {
    const pages = { 1: [record(5, 'processing'), record(1, 'completed')] };
    const { poll, madeStale, onImportEnded } = renderPage(pages);
    await shown(5);
    await poll();
    expect(madeStale()).toBe(0);
    pages[1] = [record(5, 'completed'), record(1, 'completed')];
    await poll();
    await waitFor(() => expect(onImportEnded).toHaveBeenCalledTimes(1));
    expect(madeStale()).toBe(1);
    await poll();
    await poll();
    expect(madeStale()).toBe(1);
    expect(onImportEnded).toHaveBeenCalledTimes(1);
  });

  it('does so for an upload already over when the history first shows it (a small file)', async () => {
    const pages = { 1: [record(1, 'completed')] };
    const { madeStale, onImportEnded } = renderPage(pages);
    await shown(1);
    stubXhr({ status: 201, body: record(9, 'waiting') });
    // Done before the history is read again: it never shows it running.
    pages[1] = [record(9, 'completed'), record(1, 'completed')];
    const input = document.querySelector<HTMLInputElement>('input[type=file]')!;
    await userEvent.upload(input, new File(['a,b\n'], 'small.csv', { type: 'text/csv' }));
    await userEvent.click(screen.getByTestId('import-upload'));
    await shown(9);
    await waitFor(() => expect(onImportEnded).toHaveBeenCalledTimes(1));
    expect(madeStale()).toBe(1);
  });

  it('makes nothing stale when the user turns to an older page while an import runs', async () => {
    const pages = { 1: [record(30, 'processing'), record(20, 'completed')], 2: [record(10, 'completed')] };
    const { listImports, madeStale, onImportEnded } = renderPage(pages);
    await shown(30);
    await userEvent.click(screen.getByRole('button', { name: '2' }));
    await shown(10);
    expect(listImports).toHaveBeenCalledWith(2);
    expect(madeStale()).toBe(0);
    expect(onImportEnded).not.toHaveBeenCalled();
  });

  it('takes page 1 as an earlier visit cached it as the first look: an import left running there has ended since', async () => {
    const pages = { 1: [record(5, 'completed')] };
    const { onImportEnded, madeStale } = renderPage(pages, [record(5, 'processing')]);
    await waitFor(() => expect(onImportEnded).toHaveBeenCalledTimes(1));
    expect(madeStale()).toBe(1);
  });
});
