import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Suspense } from 'react';
import { describe, expect, it, vi } from 'vitest';
import type { EmailRecipientReport, EmailReportFilter } from '@renkei/contracts';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { testServices } from '../../../test/render-app.tsx';
import { EmailRecipientReports } from './EmailRecipientReports.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const row = (n: number, over: Partial<EmailRecipientReport>): EmailRecipientReport => ({
  id: id(n),
  email_address: `r${n}@example.jp`,
  name: `受信者${n}`,
  medical_institution: null,
  delivered: true,
  opened: false,
  clicked: false,
  bounced: false,
  bounce_reason: null,
  unsubscribed: false,
  opened_at: null,
  clicked_at: null,
  delivery_in_doubt: false,
  ...over,
});

function renderReports(filter: EmailReportFilter | undefined) {
  const rows = [
    row(1, { opened: true }),
    row(2, { delivered: false, bounced: true, bounce_reason: '5.1.1 User unknown' }),
    row(3, { delivery_in_doubt: true }),
    row(4, { delivered: false, delivery_in_doubt: true }),
  ];
  const api = {
    listEmailReports: vi.fn(async () => ({
      data: filter === 'bounced' ? rows.slice(1, 2) : rows,
      meta: { total_count: filter === 'bounced' ? 1 : 4, page: 1, per_page: 50, total_pages: 1 },
    })),
  };
  const services: AppServices = { ...testServices(), api: api as unknown as AppServices['api'] };
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const onChange = vi.fn();
  render(
    <MantineProvider>
      <QueryClientProvider client={client}>
        <ServicesProvider value={services}>
          <Suspense fallback="loading">
            <EmailRecipientReports id={id(9)} page={1} filter={filter} onChange={onChange} />
          </Suspense>
        </ServicesProvider>
      </QueryClientProvider>
    </MantineProvider>,
  );
  return { api, onChange };
}

describe('email recipient reports', () => {
  it('asks for the filter of the URL, shows bounced recipients as such, and puts a new filter back from page 1', async () => {
    const { api, onChange } = renderReports(undefined);
    expect(await screen.findAllByTestId('email-report-row')).toHaveLength(4);
    expect(api.listEmailReports).toHaveBeenCalledWith(
      expect.objectContaining({ params: { id: id(9) }, query: { page: 1, per_page: 50, filter: undefined } }),
    );
    expect(screen.getByText('4件')).toBeInTheDocument();
    // In doubt after a crash: delivered again (maybe twice), or not known yet; never a plain 済.
    expect(screen.getAllByTestId('email-report-in-doubt').map((b) => b.textContent)).toEqual([
      '重複の可能性',
      '結果不明',
    ]);
    await userEvent.click(screen.getByRole('radio', { name: '結果不明' }));
    expect(onChange).toHaveBeenLastCalledWith({ page: 1, filter: 'in_doubt' });
    expect(screen.getByText('不達', { selector: '.mantine-Badge-label' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'CSV出力' })).toBeInTheDocument();

    await userEvent.click(screen.getByRole('radio', { name: '不達' }));
    expect(onChange).toHaveBeenCalledWith({ page: 1, filter: 'bounced' });
    await userEvent.click(screen.getByRole('radio', { name: '配信停止' }));
    expect(onChange).toHaveBeenLastCalledWith({ page: 1, filter: 'unsubscribed' });
  });

  it('lists only what the filter asks for', async () => {
    const { api } = renderReports('bounced');
    expect(await screen.findAllByTestId('email-report-row')).toHaveLength(1);
    expect(api.listEmailReports).toHaveBeenCalledWith(
      expect.objectContaining({ query: { page: 1, per_page: 50, filter: 'bounced' } }),
    );
    expect(screen.getByText('r2@example.jp')).toBeInTheDocument();
    expect(screen.getByRole('radio', { name: '不達' })).toBeChecked();
  });
});
