import type { ReportDefinition } from '@renkei/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { ReportListPage } from './ReportListPage.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const meta = (total: number) => ({ total_count: total, page: 1, per_page: 20, total_pages: total > 0 ? 1 : 0 });

const definition = (n: number, alertDate: string | null): ReportDefinition => ({
  id: id(n),
  kind: 'medical_institution_reports',
  name: `レポート${n}`,
  display_items: [{ item_key: 'medical_institution_name', label: null, aggregation_method: null, formula: null }],
  filter_conditions: [],
  sort_conditions: [],
  aggregation_settings: {
    period: { from: '2025-04-01', to: '2026-03-31' },
    period_unit: 'month',
    unit_type: 'year',
    comparison_period: null,
    own_department_ids: [],
  },
  created_by: { id: id(9), name: '佐藤 美咲' },
  created_at: '2026-11-01T00:00:00.000Z',
  updated_at: '2026-11-02T01:30:00.000Z',
  alert_date: alertDate,
  version: 2,
});

function renderList(list: ReportDefinition[]) {
  const api = {
    medicalInstitutionReportsListDefinitions: vi.fn(async (_args: unknown) => ({
      data: list,
      meta: meta(list.length),
    })),
    medicalInstitutionReportsDeleteDefinition: vi.fn(async (_args: unknown) => null),
  };
  const onParamsChange = vi.fn();
  renderInRouter(
    () => (
      <ReportListPage
        kind="medical_institution_reports"
        params={{ page: 1, sort_by: 'create_date' }}
        onParamsChange={onParamsChange}
      />
    ),
    { api, paths: ['/medical_institutions_reports/new', '/medical_institutions_reports/$id'] },
  );
  return { api, onParamsChange };
}

describe('ReportListPage', () => {
  it('says what to do when there is no report yet', async () => {
    renderList([]);
    const empty = await screen.findByTestId('reports-empty');
    expect(within(empty).getByText('医療機関レポートはまだありません')).toBeInTheDocument();
    expect(within(empty).getByRole('link', { name: '新規作成' })).toHaveAttribute(
      'href',
      '/app/medical_institutions_reports/new',
    );
  });

  it('lists the reports with their period, author, alert and links', async () => {
    const { onParamsChange } = renderList([definition(1, '2026-11-05'), definition(2, null)]);
    const rows = await screen.findAllByTestId('report-list-row');
    expect(rows[0]).toHaveTextContent('2025年度（月）');
    expect(rows[0]).toHaveTextContent('佐藤 美咲');
    expect(rows[0]).toHaveTextContent('2026/11/02 10:30');
    expect(within(rows[0]!).getByText('アラート')).toBeInTheDocument();
    expect(within(rows[1]!).queryByText('アラート')).not.toBeInTheDocument();
    expect(within(rows[0]!).getByRole('link', { name: 'レポート1' })).toHaveAttribute(
      'href',
      expect.stringContaining(`/app/medical_institutions_reports/${id(1)}`),
    );
    await userEvent.click(screen.getByText('アラート日順'));
    expect(onParamsChange).toHaveBeenCalledWith({ sort_by: 'alert_date', page: 1 });
  });

  it('deletes after the confirmation, with the version', async () => {
    const { api } = renderList([definition(1, null)]);
    await userEvent.click(await screen.findByRole('button', { name: 'レポート1を削除' }));
    await userEvent.click(await screen.findByTestId('report-delete-confirm'));
    await waitFor(() =>
      expect(api.medicalInstitutionReportsDeleteDefinition).toHaveBeenCalledWith({ params: { id: id(1) }, ifMatch: 2 }),
    );
  });
});
