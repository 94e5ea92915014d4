import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ServicesProvider } from '../app/services-context.tsx';
import { testServices } from '../test/render-app.tsx';
import { CsvExportButton } from './CsvExportButton.tsx';

function renderButton(props: Parameters<typeof CsvExportButton>[0]) {
  render(
    <MantineProvider>
      <ServicesProvider value={testServices()}>
        <QueryClientProvider client={new QueryClient()}>
          <CsvExportButton {...props} />
        </QueryClientProvider>
      </ServicesProvider>
    </MantineProvider>,
  );
}

describe('CSV export button', () => {
  it('offers the two encodings, Shift_JIS as the one for Excel', async () => {
    const download = vi.fn(async () => {});
    renderButton({ download });
    await userEvent.click(screen.getByRole('button', { name: 'CSV出力' }));
    const shiftJis = await screen.findByText('Shift_JIS（Excel向け）');
    expect(screen.getByText('UTF-8（BOM付き）')).toBeInTheDocument();
    expect(screen.queryByText('Excel（.xlsx）')).toBeNull();
    await userEvent.click(shiftJis);
    expect(download).toHaveBeenCalledExactlyOnceWith('shift_jis');
  });

  it('with an Excel download, says so and saves the workbook from its own item', async () => {
    const download = vi.fn(async () => {});
    const downloadExcel = vi.fn(async () => {});
    renderButton({ download, downloadExcel });
    await userEvent.click(screen.getByRole('button', { name: 'CSV・Excel出力' }));
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Excel（.xlsx）' }));
    expect(downloadExcel).toHaveBeenCalledOnce();
    expect(download).not.toHaveBeenCalled();
  });
});
