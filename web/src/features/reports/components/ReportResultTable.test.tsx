import type { ReportResult } from '@renkei/contracts';
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { exportTableOf } from '../report-format.ts';
import { ReportResultTable } from './ReportResultTable.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const result: ReportResult = {
  columns: [
    { key: 'medical_institution_name', label: '医療機関名', value_type: 'string' },
    { key: 'referral_count@2025-04-01', label: '紹介数 2025年4月', value_type: 'integer' },
    { key: 'referral_count', label: '紹介数（平均）', value_type: 'number' },
    { key: 'hospital_admission_rate', label: '入院率', value_type: 'rate' },
  ],
  rows: [
    {
      id: id(1),
      medical_institution_name: 'さくら病院',
      'referral_count@2025-04-01': 12345,
      referral_count: 1028.75,
      hospital_admission_rate: 0.3333,
    },
    {
      id: id(2),
      medical_institution_name: '',
      'referral_count@2025-04-01': 0,
      referral_count: null,
      hospital_admission_rate: null,
    },
  ],
  meta: { total_count: 2, page: 1, per_page: 100, total_pages: 1 },
};

describe('ReportResultTable', () => {
  it('formats counts with separators, rates as percentages and right-aligns numbers', async () => {
    renderInRouter(() => <ReportResultTable result={result} />, { api: {} });
    const table = await screen.findByTestId('report-result');
    const [first] = within(table).getAllByTestId('report-row');
    const cells = within(first!).getAllByRole('cell');
    expect(cells.map((c) => c.textContent)).toEqual(['さくら病院', '12,345', '1,028.75', '33.3%']);
    expect(cells[1]).toHaveStyle({ textAlign: 'right' });
    expect(cells[0]).not.toHaveStyle({ textAlign: 'right' });
    // Without a kind nothing links (a dashboard's excerpt decides for itself).
    expect(within(table).queryByRole('link')).not.toBeInTheDocument();
  });

  it('says which rows a page of a longer report holds (a page printed alone is not the whole report)', async () => {
    const third = { ...result, meta: { total_count: 1036, page: 3, per_page: 100, total_pages: 11 } };
    renderInRouter(() => <ReportResultTable result={third} />, { api: {} });
    expect(await screen.findByTestId('report-total')).toHaveTextContent(/^全1,036件$/);
    // Two rows on this page: 201st and 202nd.
    expect(screen.getByTestId('report-range')).toHaveTextContent('（201〜202件目）');
  });

  it('writes dates as the app does (2026/05/27), not as ISO dates', async () => {
    const dated: ReportResult = {
      columns: [
        { key: 'acted_at', label: '活動日', value_type: 'date' },
        { key: 'story', label: '内容', value_type: 'string' },
      ],
      rows: [{ id: id(1), acted_at: '2026-05-27', story: '2026-05-27 訪問' }],
      meta: { total_count: 1, page: 1, per_page: 100, total_pages: 1 },
    };
    renderInRouter(() => <ReportResultTable result={dated} />, { api: {} });
    const row = await screen.findByTestId('report-row');
    // A text column keeps what was written.
    expect(
      within(row)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual(['2026/05/27', '2026-05-27 訪問']);
    // The CSV keeps the ISO date.
    expect(exportTableOf('活動', dated.columns, dated.rows).rows[0]).toMatchObject({ acted_at: '2026-05-27' });
  });

  it('shows no range when the report fits one page', async () => {
    renderInRouter(() => <ReportResultTable result={result} />, { api: {} });
    await screen.findByTestId('report-result');
    expect(screen.queryByTestId('report-range')).not.toBeInTheDocument();
  });

  it('links institution rows to their CRM page', async () => {
    renderInRouter(() => <ReportResultTable result={result} kind="medical_institution_reports" />, {
      api: {},
      paths: ['/crms/$id'],
    });
    const link = await screen.findByRole('link', { name: 'さくら病院' });
    expect(link).toHaveAttribute('href', `/app/crms/${id(1)}`);
    // A row without a name still opens.
    expect(screen.getByRole('link', { name: '（名称不明）' })).toHaveAttribute('href', `/app/crms/${id(2)}`);
  });

  it('does not link communication rows to institutions', async () => {
    renderInRouter(() => <ReportResultTable result={result} kind="communication_reports" />, { api: {} });
    await screen.findByTestId('report-result');
    expect(screen.queryByRole('link')).not.toBeInTheDocument();
  });

  it('exports rates in percent and a totals row', () => {
    const table = exportTableOf('月次', result.columns, result.rows, {
      medical_institution_name: null,
      'referral_count@2025-04-01': 12345,
      referral_count: 1028.75,
      hospital_admission_rate: 0.25,
    });
    expect(table.columns.map((c) => c.label)).toContain('入院率(%)');
    expect(table.rows[0]).toMatchObject({ hospital_admission_rate: 33.3, 'referral_count@2025-04-01': 12345 });
    expect(table.rows[2]).toMatchObject({ medical_institution_name: '合計', hospital_admission_rate: 25 });
  });
});
